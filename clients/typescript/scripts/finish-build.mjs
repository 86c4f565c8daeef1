// After both tsc passes: each output folder says which module system its .js
// files use, and gets the generated schema types (tsc does not copy .d.ts sources).
import { copyFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
for (const [dir, type] of [
  ['cjs', 'commonjs'],
  ['esm', 'module'],
]) {
  writeFileSync(join(root, 'dist', dir, 'package.json'), `${JSON.stringify({ type })}\n`);
  copyFileSync(
    join(root, 'src', 'generated', 'schema.d.ts'),
    join(root, 'dist', dir, 'generated', 'schema.d.ts'),
  );
}
