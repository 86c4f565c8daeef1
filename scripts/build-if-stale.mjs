// `npm start` runs this first: it builds the dashboard and compiles (nest
// build) only when their output is missing or older than a source it is
// built from, so a second start is fast.
import { execSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// The dashboard (decisions section 15) first: its own build, skipped when nothing changed.
const { buildDashboard } = await import('./build-dashboard.mjs');
await buildDashboard({ root: process.cwd() });

const stamp = join('dist', '.build-stamp');
const inputs = [
  'src',
  'migrations',
  'tsconfig.json',
  'tsconfig.build.json',
  'nest-cli.json',
  'package-lock.json',
];

function newest(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return readdirSync(path).reduce((m, name) => Math.max(m, newest(join(path, name))), st.mtimeMs);
}

const built =
  existsSync(stamp) && existsSync(join('dist', 'src', 'main.js')) ? statSync(stamp).mtimeMs : 0;
if (built > 0 && inputs.every((p) => newest(p) < built)) {
  process.exit(0);
}
console.log(
  built
    ? 'Sources changed since the last build: compiling (nest build)'
    : 'First start: compiling (nest build)',
);
execSync('npx nest build', { stdio: 'inherit' });
writeFileSync(stamp, `${new Date().toISOString()}\n`);
