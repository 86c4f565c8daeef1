import { escapeHtml, html, page, raw, safeColor, SafeHtml, safeUrl } from './html';

describe('escapeHtml', () => {
  it('escapes every character that can break out of text or an attribute', () => {
    expect(escapeHtml(`<a href="x" title='y'>&\`</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&#96;&lt;/a&gt;',
    );
  });

  it('renders null and undefined as empty, numbers as text', () => {
    expect(escapeHtml(null)).toBe('');
    expect(escapeHtml(undefined)).toBe('');
    expect(escapeHtml(0)).toBe('0');
  });

  it('does not double-decode: an already escaped entity is escaped again', () => {
    expect(escapeHtml('&lt;script&gt;')).toBe('&amp;lt;script&amp;gt;');
  });
});

describe('html template', () => {
  it('escapes interpolated values and keeps the literal markup', () => {
    const name = '<script>alert(1)</script>';
    const out = html`<h1 title="${'"x"'}">${name}</h1>`;
    expect(out).toBeInstanceOf(SafeHtml);
    expect(out.value).toBe('<h1 title="&quot;x&quot;">&lt;script&gt;alert(1)&lt;/script&gt;</h1>');
  });

  it('nests html fragments without escaping them again', () => {
    const inner = html`<b>${'a&b'}</b>`;
    expect(html`<p>${inner}</p>`.value).toBe('<p><b>a&amp;b</b></p>');
  });

  it('joins arrays, escaping plain strings in them', () => {
    const items = ['<x>', html`<li>ok</li>`];
    expect(html`<ul>${items}</ul>`.value).toBe('<ul>&lt;x&gt;<li>ok</li></ul>');
  });

  it('renders null, undefined and false as nothing but 0 as 0', () => {
    expect(html`[${null}${undefined}${false}${0}]`.value).toBe('[0]');
  });

  it('raw passes markup through untouched', () => {
    expect(html`<div>${raw('<i>x</i>')}</div>`.value).toBe('<div><i>x</i></div>');
  });
});

describe('safeColor', () => {
  it('keeps hex colours', () => {
    expect(safeColor('#0f766e')).toBe('#0f766e');
    expect(safeColor('#FFF')).toBe('#FFF');
    expect(safeColor('#11223344')).toBe('#11223344');
  });

  it('falls back for anything else, including CSS injection attempts', () => {
    expect(safeColor('red')).toBe('#0f766e');
    expect(safeColor('#fff; } body { display:none')).toBe('#0f766e');
    expect(safeColor('#fff</style><script>alert(1)</script>')).toBe('#0f766e');
    expect(safeColor('')).toBe('#0f766e');
    expect(safeColor(null)).toBe('#0f766e');
    expect(safeColor(undefined, '#123456')).toBe('#123456');
  });
});

describe('safeUrl', () => {
  it('keeps http and https URLs', () => {
    expect(safeUrl('https://cdn.example.com/logo.png')).toBe('https://cdn.example.com/logo.png');
    expect(safeUrl('http://example.com/a?b=1&c=2')).toBe('http://example.com/a?b=1&c=2');
  });

  it('rejects javascript:, data:, vbscript: and other schemes, whatever their case or padding', () => {
    for (const bad of [
      'javascript:alert(1)',
      'JavaScript:alert(1)',
      ' javascript:alert(1)',
      'java\tscript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'vbscript:msgbox(1)',
      'file:///etc/passwd',
    ]) {
      expect(safeUrl(bad)).toBeNull();
    }
  });

  it('rejects relative and unparsable values and empties', () => {
    expect(safeUrl('/logo.png')).toBeNull();
    expect(safeUrl('not a url')).toBeNull();
    expect(safeUrl('')).toBeNull();
    expect(safeUrl(null)).toBeNull();
    expect(safeUrl(undefined)).toBeNull();
  });
});

describe('page', () => {
  it('escapes the title and never lets an accent colour escape the style block', () => {
    const out = page(
      '<script>x</script>',
      'red;}</style><script>alert(1)</script>',
      html`<p>hi</p>`,
    );
    expect(out).toContain('<title>&lt;script&gt;x&lt;/script&gt;</title>');
    expect(out).toContain('--accent: #0f766e;');
    expect(out).not.toContain('<script>');
    expect(out).toContain('<main><p>hi</p></main>');
  });
});
