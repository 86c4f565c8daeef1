/**
 * A tiny, escaping HTML template: every interpolated value is escaped unless
 * wrapped in `raw()` (used only for fragments built by `html` itself).
 * Merchant-supplied strings therefore always render as text.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"'`]/g, (c) => ESCAPES[c]);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(value);
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0];
  values.forEach((v, i) => {
    out += render(v) + strings[i + 1];
  });
  return new SafeHtml(out);
}

/** Only for markup produced by `html` or constants; never for user input. */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/** A CSS colour a merchant may set; anything else falls back. */
export function safeColor(value: string | null | undefined, fallback = '#0f766e'): string {
  return value && /^#[0-9a-fA-F]{3,8}$/.test(value) ? value : fallback;
}

/** An http(s) URL a merchant may set for a logo or link; anything else is dropped. */
export function safeUrl(value: string | null | undefined): string | null {
  if (!value) return null;
  try {
    const u = new URL(value);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.toString() : null;
  } catch {
    return null;
  }
}

/** The shared page shell for hosted pages (pay page, sandbox checkout, results). */
export function page(title: string, accent: string, body: SafeHtml, lang = 'en'): string {
  return html`<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<title>${title}</title>
<style>
  :root { --accent: ${raw(safeColor(accent))}; }
  body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans Bengali", "Hind Siliguri", "SolaimanLipi", sans-serif; background: #f4f5f7; color: #1f2933; margin: 0; }
  main { max-width: 640px; margin: 2rem auto; background: #fff; border-radius: 12px; box-shadow: 0 1px 4px rgba(0,0,0,.08); padding: 2rem; }
  header { display: flex; align-items: center; gap: 1rem; border-bottom: 3px solid var(--accent); padding-bottom: 1rem; margin-bottom: 1.5rem; }
  header img { max-height: 56px; max-width: 160px; }
  h1 { font-size: 1.3rem; margin: 0; }
  table { width: 100%; border-collapse: collapse; margin: 1rem 0; }
  th, td { text-align: left; padding: .5rem; border-bottom: 1px solid #e5e7eb; }
  td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
  td { overflow-wrap: break-word; }
  .total { font-size: 1.2rem; font-weight: 600; }
  .status { display: inline-block; padding: .2rem .6rem; border-radius: 999px; font-weight: 600; font-size: .85rem; background: #e5e7eb; }
  .status.paid, .status.succeeded { background: #d1fae5; color: #065f46; }
  .status.void, .status.failed, .status.cancelled, .status.expired { background: #fee2e2; color: #991b1b; }
  button { background: var(--accent); color: #fff; border: 0; border-radius: 8px; padding: .8rem 1.6rem; font: inherit; font-size: 1rem; font-weight: 600; cursor: pointer; }
  button.secondary { background: #6b7280; }
  button.danger { background: #b91c1c; }
  .muted { color: #6b7280; font-size: .9rem; }
  .notice { background: #fef2f2; color: #991b1b; border-radius: 8px; padding: .6rem .9rem; }
  footer { margin-top: 2rem; color: #6b7280; font-size: .85rem; white-space: pre-line; }
  a.button { display: inline-block; background: var(--accent); color: #fff; border-radius: 8px; padding: .8rem 1.6rem; font-weight: 600; text-decoration: none; }
  .actions { display: flex; gap: .75rem; flex-wrap: wrap; margin-top: 1.5rem; }
  h2 { font-size: 1.05rem; margin: 1.5rem 0 .25rem; }
  .unavailable { font-size: 1.05rem; font-weight: 600; border: 1px solid #fca5a5; }
  td.txn { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .85rem; word-break: break-all; }
  @media print {
    body { background: #fff; }
    main { box-shadow: none; margin: 0; max-width: none; }
    .no-print, .actions, form { display: none; }
  }
  /* phones: the card fills the screen and the table stays inside it */
  @media (max-width: 560px) {
    main { margin: 0; border-radius: 0; box-shadow: none; padding: 1.25rem .75rem; }
    table { font-size: .85rem; }
    th, td { padding: .45rem .25rem; }
    .total { font-size: 1rem; }
  }
</style>
</head>
<body><main>${body}</main></body>
</html>`.value;
}

/** A hosted page's 404: a title and one sentence, in the page's language. */
export function notFoundPage([title, reason]: readonly [string, string], lang = 'en'): string {
  return page(title, '#6b7280', html`<h1>${title}</h1><p>${reason}</p>`, lang);
}
