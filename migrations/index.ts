import { readdirSync } from 'node:fs';
import { join } from 'node:path';

type MigrationClass = new () => unknown;

/**
 * Every migration in this folder, oldest first. Files are named
 * `<unix-ms>-<PascalName>.ts` and export one class; loading them by file name
 * works both from TypeScript (tests) and from the compiled `dist/`.
 */
export function loadMigrations(): MigrationClass[] {
  return readdirSync(__dirname)
    .filter((f) => /^\d{13}-[A-Za-z0-9]+\.(ts|js)$/.test(f))
    .sort()
    .map((f) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const mod = require(join(__dirname, f)) as Record<string, MigrationClass>;
      const classes = Object.values(mod).filter((v) => typeof v === 'function');
      if (classes.length !== 1) throw new Error(`Migration ${f} must export exactly one class`);
      return classes[0];
    });
}
