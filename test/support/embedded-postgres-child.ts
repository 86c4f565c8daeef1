/**
 * Runs startEmbeddedPostgres in its own Node process (Jest's module sandbox
 * cannot import the ES-module package) and reports one JSON line:
 * `{ ok: true, url, clusterDir, lines }` or `{ ok: false, name, message }`.
 * Stops the server and exits when its standard input closes.
 * Usage: embedded-postgres-child.ts <dataDir> <packageDir> <runtimeRoot>
 */
import { startEmbeddedPostgres } from '../../src/database/embedded-postgres';

const [dataDir, packageDir, runtimeRoot] = process.argv.slice(2);
const lines: string[] = [];
startEmbeddedPostgres(dataDir, 'joma', { packageDir, runtimeRoot, log: (l) => lines.push(l) }).then(
  (db) => {
    process.stdout.write(
      `${JSON.stringify({ ok: true, url: db.url, clusterDir: db.clusterDir, lines })}\n`,
    );
    process.stdin.resume();
    process.stdin.on('end', () => void db.stop().finally(() => process.exit(0)));
  },
  (err: unknown) => {
    const e = err instanceof Error ? err : new Error(String(err));
    process.stdout.write(
      `${JSON.stringify({ ok: false, name: e.constructor.name, message: e.message })}\n`,
    );
    process.exit(1);
  },
);
