// Once per test run (test/support/global-setup.ts): src/ and migrations/
// transpiled to JavaScript, file by file, exactly as ts-node's transpile-only
// mode does for `npm run cli` (no type-check: `npm run lint` type-checks), into
// node_modules/.cache/joma-test-build. The e2e specs that start the real
// entry point in child processes (startup, replicas killed mid-operation, the
// money model) then start `node .../src/main.js` in about a second instead of
// transpiling the whole service again in every process (about 5 s of CPU
// each). Files whose output is newer than their source are skipped.
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ts = createRequire(import.meta.url)('typescript');

export const TEST_BUILD_DIR = join(root, 'node_modules', '.cache', 'joma-test-build');

function* outputs(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* outputs(path);
    else if (name.endsWith('.js')) yield path;
  }
}

function* sources(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (name.endsWith('.ts') && !name.endsWith('.spec.ts') && !name.endsWith('.d.ts'))
      yield path;
  }
}

/** Transpiles what changed; the path of the entry point's JavaScript. */
export function transpileForTests() {
  const { config } = ts.readConfigFile(join(root, 'tsconfig.json'), ts.sys.readFile);
  const compilerOptions = {
    ...ts.convertCompilerOptionsFromJson(config.compilerOptions, root).options,
    module: ts.ModuleKind.CommonJS,
    sourceMap: false,
    inlineSourceMap: true,
    inlineSources: false,
    incremental: false,
    declaration: false,
    noEmit: false,
  };
  for (const top of ['src', 'migrations']) {
    const wanted = new Set();
    for (const file of sources(join(root, top))) {
      wanted.add(join(TEST_BUILD_DIR, relative(root, file)).replace(/\.ts$/, '.js'));
      const out = join(TEST_BUILD_DIR, relative(root, file)).replace(/\.ts$/, '.js');
      if (existsSync(out) && statSync(out).mtimeMs >= statSync(file).mtimeMs) continue;
      const { outputText } = ts.transpileModule(readFileSync(file, 'utf8'), {
        compilerOptions,
        fileName: file,
      });
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, outputText);
    }
    // A source renamed or removed leaves no output behind (a stale migration would run).
    const built = join(TEST_BUILD_DIR, top);
    if (existsSync(built)) for (const out of outputs(built)) if (!wanted.has(out)) rmSync(out);
  }
  return join(TEST_BUILD_DIR, 'src', 'main.js');
}

if (process.argv[1] === fileURLToPath(import.meta.url))
  process.stdout.write(`${transpileForTests()}\n`);
