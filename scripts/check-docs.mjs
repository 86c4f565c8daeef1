// The docs check (issue 48): fails `npm run lint` on the kinds of
// contradiction between the docs and the code that a newcomer trips on and a
// machine can see:
//   1. a dated promise already in the past ("not retired before 2026-11-29");
//   2. "not in this version" (or "not yet available", "coming") said of a
//      feature whose route exists in the OpenAPI document;
//   3. a permission called reserved (or unused) that an operation requires
//      (the document's `x-permissions`).
// It reads the committed document (clients/typescript/openapi.json, kept
// exact by `npm run sdk:generate` and CI), so it needs no running service.
// `node scripts/check-docs.mjs --selftest` proves each rule fires.
import { readdirSync, readFileSync, statSync, existsSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

const PROMISE_DATE =
  /\b(?:before|until|till|by|through|no earlier than|not earlier than)\s+(?:the\s+)?(\d{4}-\d{2}-\d{2})\b/gi;
const NOT_YET =
  /\bnot in this version\b|\bnot (?:yet )?(?:available|implemented|supported) (?:yet|in this version)\b|\bcoming soon\b|\bnot built yet\b/i;
const RESERVED = /\breserved\b|\bunused\b|\bnot (?:yet )?(?:used|enforced|checked)\b/i;
const SUBJECT_STOP = new Set(
  'is are will was were be not from to with in on for of by at as and or pulled made done yet still through via into over under without than other beyond that which when the a an'.split(
    ' ',
  ),
);
const ARTICLES = new Set(['the', 'a', 'an', 'our', 'your']);

/** Path segments and tags of the document, lower-case (what a feature is called in routes). */
export function routeWords(doc) {
  const words = new Set();
  for (const [path, ops] of Object.entries(doc.paths ?? {})) {
    for (const seg of path.split('/'))
      if (seg && !seg.startsWith('{')) words.add(seg.toLowerCase());
    for (const op of Object.values(ops)) for (const tag of op?.tags ?? []) words.add(kebab(tag));
  }
  for (const tag of doc.tags ?? []) words.add(kebab(tag.name));
  return words;
}

/** Permissions some operation requires. */
export function requiredPermissions(doc) {
  const perms = new Set();
  for (const ops of Object.values(doc.paths ?? {}))
    for (const op of Object.values(ops)) for (const p of op?.['x-permissions'] ?? []) perms.add(p);
  return perms;
}

function kebab(text) {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** The feature a sentence or list item is about: its leading noun phrase. */
function subjectOf(text) {
  const words = text
    .replace(/[`*_[\]()]/g, ' ')
    .trim()
    .split(/\s+/)
    .map((w) => w.toLowerCase().replace(/[^a-z0-9@/-]/g, ''))
    .filter(Boolean);
  const out = [];
  for (const w of words) {
    if (out.length === 0 && ARTICLES.has(w)) continue;
    if (SUBJECT_STOP.has(w)) break;
    out.push(w);
    if (out.length === 4) break;
  }
  return out.join('-');
}

function matchesRoute(subject, words) {
  if (!subject) return false;
  const forms = [subject, subject + 's', subject.replace(/s$/, ''), subject.replace(/ies$/, 'y')];
  return forms.some((f) => words.has(f));
}

/** Lines outside fenced code blocks, with their numbers. */
function proseLines(text) {
  const out = [];
  let fenced = false;
  text.split('\n').forEach((line, i) => {
    if (/^\s*```/.test(line)) fenced = !fenced;
    else if (!fenced) out.push({ n: i + 1, line });
  });
  return out;
}

export function checkText(name, text, { today, words, permissions }) {
  const problems = [];
  const lines = proseLines(text);
  let notYetList = false;
  for (const { n, line } of lines) {
    for (const m of line.matchAll(PROMISE_DATE)) {
      if (m[1] <= today)
        problems.push(`${name}:${n}: a dated promise already in the past ("${m[0]}")`);
    }
    const item = /^\s*[-*]\s+(.*)$/.exec(line);
    if (notYetList && item) {
      const subject = subjectOf(item[1]);
      if (matchesRoute(subject, words))
        problems.push(
          `${name}:${n}: "${subject}" is listed as not in this version, but the API has routes for it`,
        );
    } else if (notYetList && line.trim() !== '') notYetList = false;
    if (NOT_YET.test(line)) {
      if (/:\s*$/.test(line)) notYetList = true;
      else {
        const sentence = line
          .split(NOT_YET)[0]
          .split(/[.!?]\s/)
          .pop();
        const subject = subjectOf(sentence.replace(/^\s*[-*]\s+/, ''));
        if (matchesRoute(subject, words))
          problems.push(
            `${name}:${n}: "${subject}" is called not in this version, but the API has routes for it`,
          );
      }
    }
    if (RESERVED.test(line)) {
      for (const m of line.matchAll(/`([a-z]+:[a-z]+)`/g)) {
        if (permissions.has(m[1]))
          problems.push(
            `${name}:${n}: permission ${m[1]} is called reserved or unused, but an operation requires it`,
          );
      }
    }
  }
  return problems;
}

function* markdownFiles() {
  for (const file of ['README.md', 'SECURITY.md', 'clients/typescript/README.md'])
    if (existsSync(join(root, file))) yield join(root, file);
  const walk = function* (dir) {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) yield* walk(path);
      else if (name.endsWith('.md')) yield path;
    }
  };
  yield* walk(join(root, 'docs'));
}

function selftest() {
  const doc = {
    paths: {
      '/api/v1/payments/{id}/refunds': { post: { tags: ['refunds'] } },
      '/api/v1/admin/refunds/{id}/approve': { post: { 'x-permissions': ['refunds:approve'] } },
      '/api/v1/admin/settlements/import': { post: {} },
    },
  };
  const ctx = {
    today: '2026-11-29',
    words: routeWords(doc),
    permissions: requiredPermissions(doc),
  };
  const cases = [
    ['The v1 signature will not be retired before 2026-11-29.', 1],
    ['The v1 signature stays until 2030-01-01.', 0],
    ['```\n"created_at": before 2020-01-01\n```', 0],
    ['Refunds are not in this version yet.', 1],
    [
      'Coming (not in this version):\n\n- Refunds through the dashboard\n- Settlement reports pulled from bKash',
      1,
    ],
    ['Coming (not in this version):\n\n- Settlement reports pulled from bKash', 0],
    ['`refunds:approve` is reserved for a later version.', 1],
    ['`audit:read` is reserved.', 0],
  ];
  let failed = 0;
  for (const [text, expected] of cases) {
    const got = checkText('selftest', text, ctx).length;
    if (got !== expected) {
      failed++;
      console.error(`docs check selftest: expected ${expected} problem(s), got ${got}: ${text}`);
    }
  }
  return failed;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const selfFailures = selftest();
  const doc = JSON.parse(readFileSync(join(root, 'clients/typescript/openapi.json'), 'utf8'));
  const ctx = {
    today: new Date().toISOString().slice(0, 10),
    words: routeWords(doc),
    permissions: requiredPermissions(doc),
  };
  const problems = [];
  for (const file of markdownFiles())
    problems.push(...checkText(relative(root, file), readFileSync(file, 'utf8'), ctx));
  for (const p of problems) console.error(p);
  if (problems.length || selfFailures) {
    console.error(
      `docs check: ${problems.length} problem(s)${selfFailures ? ', selftest failed' : ''}`,
    );
    process.exit(1);
  }
  console.log(
    'docs check: no dated promise in the past, no existing feature called missing, no required permission called reserved',
  );
}
