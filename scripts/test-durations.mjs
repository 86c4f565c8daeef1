#!/usr/bin/env node
// Reads a Jest JSON report (`jest --json --outputFile=F`) and prints its slowest
// test files, each with its seconds and test count (a file two projects run,
// such as an e2e file of the Fastify smoke set, is listed once per run). With --write it
// also records every file's seconds in test/durations.json, which the
// heavy-first sequencer (test/support/heavy-first-sequencer.cjs) reads when
// Jest's own timing cache has nothing for a file (always so on a clean clone).
//
//   node scripts/test-durations.mjs <report.json> [--top N] [--write]
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const reportPath = args.find((a) => !a.startsWith('--'));
if (!reportPath) {
  console.error('usage: node scripts/test-durations.mjs <jest-report.json> [--top N] [--write]');
  process.exit(2);
}
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args[topAt + 1]) : 15;
const report = JSON.parse(readFileSync(reportPath, 'utf8'));
// A report from a clone elsewhere names its files under that clone: keep the part from a known folder on.
const relativeName = (file) => {
  const rel = relative(root, file);
  const m = /(?:^|\/)((?:src|test|clients)\/.*)$/.exec(rel);
  return m ? m[1] : rel;
};
const files = report.testResults.map((r) => ({
  key: relativeName(r.name),
  seconds: Math.max(0, (r.endTime - r.startTime) / 1000),
  tests: r.assertionResults.length,
}));
files.sort((a, b) => b.seconds - a.seconds);
const total = files.reduce((s, f) => s + f.seconds, 0);
console.log(
  `Slowest test files (of ${files.length} file runs; ${total.toFixed(0)} s of file time in all):`,
);
for (const f of files.slice(0, top))
  console.log(
    `  ${f.seconds.toFixed(1).padStart(6)} s  ${String(f.tests).padStart(4)} tests  ${f.key}`,
  );
if (args.includes('--write')) {
  // The longer of a file's runs (files is sorted slowest first).
  const seconds = {};
  for (const f of files) seconds[f.key] ??= Math.round(f.seconds * 10) / 10;
  const out = Object.fromEntries(
    Object.keys(seconds)
      .sort()
      .map((k) => [k, seconds[k]]),
  );
  writeFileSync(join(root, 'test', 'durations.json'), `${JSON.stringify(out, null, 2)}\n`);
  console.log(`test/durations.json: ${Object.keys(out).length} files`);
}
