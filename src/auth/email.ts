/**
 * The one normalised form of an admin email, used for every comparison and
 * every throttling key: Unicode NFKC, trimmed, lower case. (JavaScript and
 * PostgreSQL fold case differently for some letters, such as the dotted
 * capital I; comparing only this form keeps `vİctim@` from being a second
 * spelling of `victim@`.)
 */
export function normalizeEmail(email: string): string {
  return email.normalize('NFKC').trim().toLowerCase();
}
