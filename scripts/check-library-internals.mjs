// decisions.md section 18: no code reaches into a library's internals
// (private or protected members, patched prototypes, replaced internals, a
// package's private files). A measured gain that needs one lives in
// src/platform/<library>.ts, behind a switch, with a test pinned to the
// library's version; this check keeps every other file of src/ clean.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const RULES = [
  [/\.\s*_[A-Za-z]\w*/, "a member named _... (a library's private field)"],
  [/\.prototype\.\w+\s*=(?!=)/, 'a patched prototype'],
  [
    /\b(?:from|require\()\s*['"](?:@[\w-]+\/)?[\w.-]+\/(?:lib|dist|build|internal)\//,
    "a package's private files",
  ],
  [
    /\btransactionDepth\b|\bgetMetadataStorage\(\)\s*\.\s*\w+\s*=|\bvalidationMetadatas\b|\bconstraintMetadatas\b/,
    'a known internal of TypeORM or class-validator',
  ],
];

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (path.endsWith('.ts') && !path.endsWith('.spec.ts')) yield path;
  }
}

const found = [];
for (const file of files(join(root, 'src'))) {
  const rel = relative(root, file);
  if (rel.startsWith('src/platform/')) continue;
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      const code = line.replace(/\/\/.*$/, '');
      if (/^\s*(\*|\/\*)/.test(code)) return; // comments
      for (const [re, what] of RULES)
        if (re.test(code)) found.push(`${rel}:${i + 1}: ${what}: ${line.trim()}`);
    });
}
if (found.length) {
  console.error('Library internals reached outside src/platform/ (decisions.md section 18):');
  for (const f of found) console.error(`  ${f}`);
  process.exitCode = 1;
} else {
  console.log('library internals: none reached outside src/platform/');
}
