/**
 * The origin of a gateway fake's customer pages: its own server, under
 * another host name. `localhost` against Joma's 127.0.0.1 puts the pages on
 * another site (sites ignore ports), as the real gateway's pages are.
 */
export function pageOrigin(baseUrl: string, host: string): string {
  const url = new URL(baseUrl);
  url.hostname = host;
  return url.origin;
}
