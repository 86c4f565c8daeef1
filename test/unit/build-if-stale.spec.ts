import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** `npm start`'s prestart: compile only when dist/ is missing or older than a source. */
describe('scripts/build-if-stale.mjs', () => {
  const script = resolve(__dirname, '..', '..', 'scripts', 'build-if-stale.mjs');
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'joma-build-'));
    mkdirSync(join(dir, 'src'));
    mkdirSync(join(dir, 'dist', 'src'), { recursive: true });
    writeFileSync(join(dir, 'src', 'main.ts'), '');
    writeFileSync(join(dir, 'dist', 'src', 'main.js'), '');
    writeFileSync(join(dir, 'dist', '.build-stamp'), '');
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const run = () =>
    // PATH without npx: a compile attempt fails fast instead of building anything.
    spawnSync(process.execPath, [script], {
      cwd: dir,
      encoding: 'utf8',
      env: { PATH: '/nonexistent' },
    });
  const age = (path: string, secondsAgo: number) => {
    const t = new Date(Date.now() - secondsAgo * 1000);
    utimesSync(join(dir, path), t, t);
  };

  it('does nothing when dist/ is newer than every source', () => {
    age('src/main.ts', 60);
    age('src', 60);
    const r = run();
    expect(r.status).toBe(0);
    expect(r.stdout).toBe('');
  });

  it('compiles when a source is newer than the last build', () => {
    age('dist/.build-stamp', 60);
    const r = run();
    expect(r.stdout).toContain('Sources changed since the last build: compiling (nest build)');
  });

  it('compiles on the first start (no dist/)', () => {
    rmSync(join(dir, 'dist'), { recursive: true });
    const r = run();
    expect(r.stdout).toContain('First start: compiling (nest build)');
  });
});
