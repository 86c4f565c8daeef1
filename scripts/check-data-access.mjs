// Data access lives in repositories: raw SQL (`.query(`), query builders,
// `getRepository(` and TenantRepo appear only in `*.repository.ts` files (and
// in src/database, the shared plumbing). Part of `npm run lint`.
//
// Files that still query directly are listed in scripts/data-access-debt.txt,
// one path per line: the list may only shrink. A listed file that no longer
// queries fails the check too, so the list stays true.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PATTERN = /\.query\(|createQueryBuilder\(|getRepository\(|new TenantRepo\b|\.manager\./;

function* walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (path.endsWith('.ts')) yield path;
  }
}

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
// One way to write raw SQL (docs/architecture.md, "Writing SQL"): repositories use TypeORM
// (repositories, the query builder) and `sql()` of src/database/sql.ts,
// never `.query(` on an EntityManager, a DataSource or a pg pool themselves.
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
let failed = false;
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
    `data access: only repositories query (${debt.size} file(s) still listed as debt in scripts/data-access-debt.txt)`,
  );
