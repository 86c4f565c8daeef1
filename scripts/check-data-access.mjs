// Data access lives in repositories: raw SQL (`.query(`), query builders,
// `getRepository(` and TenantRepo appear only in `*.repository.ts` files (and
// in src/database, the shared plumbing). Part of `npm run lint`.
//
// Files that still query directly are listed in scripts/data-access-debt.txt,
// one path per line: the list may only shrink. A listed file that no longer
// queries fails the check too, so the list stays true.
//
// Every repository has a kind (scripts/repository-kinds.txt; docs/architecture.md,
// "Writing SQL"), and its statements take that kind's form: `sql` repositories
// use sql() (and EntitySql) only, `entity` repositories also TypeORM's
// Repository API; no repository runs a query builder (a list's builder goes to
// pageOf/listExport). Before reading src/ the check proves itself on the
// fixtures below (`--self-test` runs only them).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PATTERN = /\.query\(|createQueryBuilder\(|getRepository\(|new TenantRepo\b|\.manager\./;
const selfTestOnly = process.argv.includes('--self-test');

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (path.endsWith('.ts')) yield path;
  }
}

// The forms a repository's kind refuses (matched on its text without comments).
// `(?:<[^()]*?>)?` lets a type argument stand between a method and its call.
const FORMS = {
  /** A query builder run here: only pageOf/listExport run one (a list's). */
  runsBuilder: {
    what: 'runs a query builder: only a list builds one, for pageOf/listExport to run',
    re: /\.(?:getOne|getOneOrFail|getMany|getRawOne|getRawMany|getCount|getManyAndCount|getRawAndEntities|getExists|execute|stream|setLock|setOnLocked)\s*(?:<[^()]*?>)?\s*\(|\.(?:insert|update|delete|softDelete|restore)\(\s*\)|createQueryBuilder\(\s*\)/g,
  },
  /** TypeORM's Repository API, TenantRepo, or an EntityManager's own find/save. */
  repositoryApi: {
    what: "uses TypeORM's Repository API: every statement goes through sql() or EntitySql",
    re: /getRepository\s*(?:<[^()]*?>)?\s*\(|\bTenantRepo\b|\.repo\b|\.(?:tx|manager)\s*\.\s*(?:find\w*|save|insert|update|upsert|delete|remove|softDelete|restore|count\w*|exists\w*|increment|decrement|sum|average|minimum|maximum|preload|merge|create)\s*(?:<[^()]*?>)?\s*\(/g,
  },
};
const REFUSED = { sql: ['runsBuilder', 'repositoryApi'], entity: ['runsBuilder'] };

/** Comments blanked out (line breaks kept), so a comment naming a method is no use of it. */
const withoutComments = (text) =>
  text
    .replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' '))
    .replace(/(^|[^:])\/\/.*$/gm, (_, before) => before);

/** Where a repository of `kind` breaks its rule: `line: what`, one per line and form. */
function breaches(text, kind) {
  const code = withoutComments(text);
  const found = new Map();
  for (const form of REFUSED[kind])
    for (const m of code.matchAll(FORMS[form].re)) {
      const line = code.slice(0, m.index).split('\n').length;
      found.set(`${line}:${form}`, { line, what: FORMS[form].what });
    }
  return [...found.values()].sort((a, b) => a.line - b.line);
}

// The self-test: each fixture's breaches are exactly its lines marked FLAG.
const FIXTURES = {
  sql: `
export class ThingsRepository {
  page(scope, query) {
    const qb = this.txHost.tx.createQueryBuilder(Thing, 't').where('t.appId = :appId', scope);
    return pageOf(qb, 't', query);
  }
  claim(now) {
    // getRepository( and .getOne( named in a comment are no use of them
    return sql(this.txHost.tx).rows('SELECT id FROM things WHERE due <= $1 FOR UPDATE SKIP LOCKED', [now]);
  }
  byId(id) {
    const t = EntitySql.of(this.txHost.tx.connection, Thing);
    return t.rows(this.txHost.tx, \`SELECT \${t.selectList} FROM \${t.table} WHERE id = $1\`, [id]);
  }
  a(id) { return this.txHost.tx.getRepository(Thing).findOne({ where: { id } }); } // FLAG
  b() { return this.txHost.tx // FLAG
    .find(Thing, { order: { id: 'ASC' } }); }
  c() { return new TenantRepo(this.txHost, Thing, 'Thing'); } // FLAG
  d(thing) { return this.things.repo.save(thing); } // FLAG
  e(id) { return this.txHost.tx.createQueryBuilder(Thing, 't').where('t.id = :id', { id }).getOne(); } // FLAG
}
`,
  entity: `
export class WidgetsRepository {
  lock(scope, id) {
    return this.widgets.repo.findOne({ where: this.widgets.where(scope, { id }), lock: { mode: 'pessimistic_write' } });
  }
  insert(fields) { return this.widgets.repo.save(this.widgets.repo.create(fields)); }
  page(scope, query) { return pageOf(this.widgets.repo.createQueryBuilder('w').where(this.widgets.where(scope)), 'w', query); }
  claim(now) { return sql(this.txHost.tx).run('UPDATE widgets SET claimed = $1 WHERE id IN (SELECT id FROM widgets FOR UPDATE SKIP LOCKED)', [now]); }
  hot(fields) { return this.widgets.sql.insert(this.txHost.tx, fields); }
  a() { return this.widgets.repo.createQueryBuilder('w').setLock('pessimistic_write').getMany(); } // FLAG
  async b(id) {
    await this.widgets.repo.createQueryBuilder().update().set({ done: true }).where('id = :id', { id }).execute(); // FLAG
  }
  c(id) {
    return this.widgets.repo
      .createQueryBuilder('w')
      .where('w.id = :id', { id })
      .getOne(); // FLAG
  }
  async ids() {
    const rows = await this.widgets.repo.createQueryBuilder('w').select('w.id', 'id')
      .getRawMany<{ id: string }>(); // FLAG
    return rows.map((r) => Number(r.id));
  }
  d(rows) {
    return this.widgets.repo
      .createQueryBuilder() // FLAG
      .insert() // FLAG
      .into(Widget)
      .values(rows)
      .orIgnore()
      .execute(); // FLAG
  }
}
`,
};
const selfTestErrors = [];
for (const [kind, text] of Object.entries(FIXTURES)) {
  const lines = text.split('\n');
  const expected = new Set(lines.flatMap((l, i) => (/\/\/ FLAG\b/.test(l) ? [i + 1] : [])));
  const got = new Set(breaches(text, kind).map((b) => b.line));
  for (const n of expected)
    if (!got.has(n))
      selfTestErrors.push(`missing:    ${kind} fixture:${n}: ${lines[n - 1].trim()}`);
  for (const n of got)
    if (!expected.has(n))
      selfTestErrors.push(`unexpected: ${kind} fixture:${n}: ${lines[n - 1].trim()}`);
}
if (selfTestErrors.length) {
  console.error(
    'data access self-test FAILED: the repository-kind check does not fire as expected.',
  );
  for (const e of selfTestErrors) console.error(`  ${e}`);
  process.exitCode = 1;
} else if (selfTestOnly) {
  console.log(
    `data access self-test: every marked breach caught (${Object.keys(FIXTURES).join(' and ')} fixtures)`,
  );
}
if (!selfTestErrors.length && !selfTestOnly) checkSources();

/** The data-access rules over src/ (after the self-test passed). */
function checkSources() {
  const debt = new Set(
    readFileSync(join(root, 'scripts', 'data-access-debt.txt'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#')),
  );
  const offenders = new Map();
  for (const path of walk(join(root, 'src'))) {
    const rel = relative(root, path);
    if (rel.startsWith('src/database/') || /\.(repository|spec)\.ts$/.test(rel)) continue;
    const lines = readFileSync(path, 'utf8').split('\n');
    const hits = lines.flatMap((l, i) => (PATTERN.test(l) ? [`${rel}:${i + 1}: ${l.trim()}`] : []));
    if (hits.length) offenders.set(rel, hits);
  }
  // One way to write raw SQL (docs/architecture.md, "Writing SQL"): `sql()` of
  // src/database/sql.ts, never `.query(` on an EntityManager, a DataSource or a
  // pg pool themselves.
  const RAW_QUERY = /\.query\(/;
  const rawInRepositories = [];
  for (const path of walk(join(root, 'src'))) {
    const rel = relative(root, path);
    if (!rel.endsWith('.repository.ts')) continue;
    readFileSync(path, 'utf8')
      .split('\n')
      .forEach((l, i) => {
        if (RAW_QUERY.test(l)) rawInRepositories.push(`${rel}:${i + 1}: ${l.trim()}`);
      });
  }
  // Each repository's kind, and the forms it refuses.
  const kinds = new Map();
  const kindErrors = [];
  readFileSync(join(root, 'scripts', 'repository-kinds.txt'), 'utf8')
    .split('\n')
    .forEach((l, i) => {
      const line = l.trim();
      if (!line || line.startsWith('#')) return;
      const m = /^(\S+)\s+(sql|entity)(?:\s+pending:\s*(\S.*))?$/.exec(line);
      if (!m)
        kindErrors.push(
          `scripts/repository-kinds.txt:${i + 1}: not "<path> sql|entity [pending: why]": ${line}`,
        );
      else kinds.set(m[1], { kind: m[2], pending: m[3] });
    });
  const repositories = [...walk(join(root, 'src'))]
    .map((path) => relative(root, path))
    .filter((rel) => rel.endsWith('.repository.ts'));
  for (const rel of repositories)
    if (!kinds.has(rel))
      kindErrors.push(`${rel} has no kind: add it to scripts/repository-kinds.txt (sql or entity)`);
  for (const [rel, { kind, pending }] of kinds) {
    if (!repositories.includes(rel)) {
      kindErrors.push(
        `scripts/repository-kinds.txt names ${rel}, which is not a repository in src/`,
      );
      continue;
    }
    const found = breaches(readFileSync(join(root, rel), 'utf8'), kind);
    if (pending && found.length === 0)
      kindErrors.push(
        `${rel} keeps its kind's rule now: drop its "pending" in scripts/repository-kinds.txt`,
      );
    if (!pending) for (const b of found) kindErrors.push(`${rel}:${b.line}: (${kind}) ${b.what}`);
  }
  const pendingKinds = [...kinds.values()].filter((k) => k.pending).length;

  let failed = false;
  if (kindErrors.length) {
    failed = true;
    console.error(
      'A repository\'s statements take its kind\'s form (docs/architecture.md, "Writing SQL"):',
    );
    for (const e of kindErrors) console.error(`  ${e}`);
  }
  if (rawInRepositories.length) {
    failed = true;
    console.error('Raw SQL in a repository goes through sql() (src/database/sql.ts):');
    for (const h of rawInRepositories) console.error(`  ${h}`);
  }
  for (const [rel, hits] of offenders) {
    if (debt.has(rel)) continue;
    failed = true;
    console.error(`Data access outside a repository (move it into the feature's *.repository.ts):`);
    for (const h of hits) console.error(`  ${h}`);
  }
  for (const rel of debt) {
    if (offenders.has(rel)) continue;
    failed = true;
    console.error(`${rel} no longer queries directly: remove it from scripts/data-access-debt.txt`);
  }
  if (failed) process.exitCode = 1;
  else
    console.log(
      `data access: only repositories query (${debt.size} file(s) still listed as debt in scripts/data-access-debt.txt); ` +
        `${kinds.size} repositories keep their kind's form (${pendingKinds} pending); self-test passed`,
    );
}
