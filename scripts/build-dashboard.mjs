// Builds the dashboard (dashboard/src, decisions section 15) into dashboard/dist:
// one minified ES module and one stylesheet with content hashes, the page
// that loads them, and a gzip and a brotli copy of each (the server sends the
// smallest the browser accepts). Skips the work when nothing it is built from
// changed since the last build. `node scripts/build-dashboard.mjs --force`
// builds regardless.
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const INPUTS = [
  'dashboard/src',
  'dashboard/index.html',
  'dashboard/public',
  'clients/typescript/src/client.ts',
  'clients/typescript/src/retry.ts',
  'clients/typescript/src/generated',
  'package-lock.json',
  'scripts/build-dashboard.mjs',
];

function newest(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return readdirSync(path).reduce((m, name) => Math.max(m, newest(join(path, name))), st.mtimeMs);
}

/** Builds the dashboard of the checkout at `root` (nothing there to build: nothing done). */
export async function buildDashboard({ force = false, quiet = false, root = repoRoot } = {}) {
  if (!existsSync(join(root, 'dashboard', 'src'))) return false;
  const out = join(root, 'dashboard', 'dist');
  const stamp = join(out, '.build-stamp');
  const inputs = INPUTS.map((p) => join(root, p));
  const built = existsSync(stamp) ? statSync(stamp).mtimeMs : 0;
  if (!force && built > 0 && inputs.every((p) => newest(p) < built)) return false;
  const { build } = await import('esbuild');
  if (!quiet) console.log('Building the dashboard (esbuild)');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const result = await build({
    absWorkingDir: root,
    entryPoints: ['dashboard/src/main.tsx'],
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['es2022'],
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: 'app-[hash]',
    outdir: out,
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const files = Object.keys(result.metafile.outputs).map((f) => basename(f));
  const js = files.find((f) => f.endsWith('.js'));
  const css = files.find((f) => f.endsWith('.css'));
  const html = readFileSync(join(root, 'dashboard', 'index.html'), 'utf8')
    .replace('%JS%', `/dashboard/${js}`)
    .replace('%CSS%', `/dashboard/${css}`);
  writeFileSync(join(out, 'index.html'), html);
  // Files served as they are (the docs' example logo: /dashboard/example-logo.svg).
  const extra = readdirSync(join(root, 'dashboard', 'public'));
  for (const f of extra) copyFileSync(join(root, 'dashboard', 'public', f), join(out, f));
  for (const f of [js, css, 'index.html', ...extra]) {
    const body = readFileSync(join(out, f));
    writeFileSync(join(out, `${f}.gz`), gzipSync(body, { level: 9 }));
    writeFileSync(
      join(out, `${f}.br`),
      brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
    );
  }
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
  return true;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await buildDashboard({ force: process.argv.includes('--force') });
}
