/**
 * The order Jest starts test files in (jest.config.js `testSequencer`):
 *
 * 1. files that failed last time (Jest's own rule, kept);
 * 2. the `process` project first: specs that start processes, databases or a
 *    browser (the longest files, and the ones that wait most on something
 *    other than this process's CPU, so they overlap best with the rest);
 * 3. then the heaviest files first, so no long file starts last and leaves
 *    one worker running alone at the end.
 *
 * A file's weight is its last duration from Jest's own timing cache, or, on a
 * clean clone where that cache is empty, from test/durations.json (written by
 * `node scripts/test-durations.mjs <report.json> --write` from a JSON report);
 * a file in neither (a new one) counts as heavy, so it is not left to the end.
 */
const { readFileSync } = require('node:fs');
const { join, relative } = require('node:path');

const Sequencer = require('@jest/test-sequencer').default;

const ROOT = join(__dirname, '..', '..');
const UNKNOWN_FILE_SECONDS = 10;

function recordedSeconds() {
  try {
    return JSON.parse(readFileSync(join(ROOT, 'test', 'durations.json'), 'utf8'));
  } catch {
    return {};
  }
}

class HeavyFirstSequencer extends Sequencer {
  constructor(...args) {
    super(...args);
    this.recorded = recordedSeconds();
  }

  /** Milliseconds, as Jest's cache holds them. */
  weight(test) {
    const cached = this.time(test);
    if (cached != null) return cached;
    const seconds = this.recorded[relative(ROOT, test.path).split('\\').join('/')];
    return (seconds ?? UNKNOWN_FILE_SECONDS) * 1000;
  }

  sort(tests) {
    const lane = (test) => (test.context.config.displayName?.name === 'process' ? 0 : 1);
    const keyed = tests.map((test) => ({
      test,
      failed: this.hasFailed(test) ? 0 : 1,
      lane: lane(test),
      weight: this.weight(test),
    }));
    keyed.sort((a, b) => a.failed - b.failed || a.lane - b.lane || b.weight - a.weight);
    return keyed.map((k) => k.test);
  }
}

module.exports = HeavyFirstSequencer;
