// `npm run joma -- listen ...`: the `joma` command of the client package
// (clients/typescript), built first when its build is missing or older than
// its sources, so it runs from this repository as it does once installed.
import { execSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const client = join(dirname(fileURLToPath(import.meta.url)), '..', 'clients', 'typescript');
const bin = join(client, 'dist', 'cjs', 'cli.js');

function newest(path) {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  return readdirSync(path).reduce((m, name) => Math.max(m, newest(join(path, name))), st.mtimeMs);
}

if (!existsSync(bin) || newest(join(client, 'src')) > statSync(bin).mtimeMs) {
  process.stderr.write('Building the client package (clients/typescript) first\n');
  execSync('npm run --silent build', { cwd: client, stdio: ['ignore', 'ignore', 'inherit'] });
}
const child = spawn(process.execPath, [bin, ...process.argv.slice(2)], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
