/**
 * Three tiers. Unit specs sit beside the code (test/unit/ holds the pure specs
 * that span features, such as the money-integrity model); medium specs
 * (test/medium) run services and use cases against a cloned real PostgreSQL
 * with no HTTP; e2e specs run the real app over real HTTP. TypeScript is transpiled per file (no type-check: `npm run lint`
 * does that), keeping decorator metadata for Nest's dependency injection.
 */
const transform = {
  '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.json', diagnostics: false }],
};

/**
 * Dependencies published only as ES modules (NestJS 12, content-disposition 3)
 * are loaded as they are, through Jest's native require(esm), which needs
 * Node's --experimental-vm-modules (the `npm test` scripts set it).
 */
const transformIgnorePatterns = ['/node_modules/'];

/** What the Fastify adapter must keep doing like Express: envelopes, errors, limits, pages, callbacks, webhooks. */
const FASTIFY_SMOKE = [
  'foundation',
  'errors',
  'exposure',
  'request-limits',
  'hostile-input',
  'rate-limits',
  'pay-page',
  'payment-result-page',
  'sslcommerz',
  'bkash',
  'gateways-walk',
  'webhooks-delivery',
];

/**
 * Specs that start processes, databases or a browser (child replicas, the CLI,
 * `npm start`, the packed client, Chromium): their own project, which the
 * heavy-first sequencer starts first (they are the longest files, and they
 * wait on other processes more than on this one, so they overlap best with
 * the rest). Same set-up as e2e.
 */
const PROCESS_SPECS = [
  'cli',
  'container-smoke',
  'dashboard.browser',
  'dashboard-apps.browser',
  'dashboard-first-day.browser',
  'dashboard-lists.browser',
  'dashboard-manual-refunds.browser',
  'database-connection-loss',
  'default-paths',
  'embedded-postgres',
  'money-model',
  'nagad.browser',
  'pay-page.browser',
  'pgbouncer',
  'read-replica',
  'readme-walk',
  'replica-killed',
  'sdk-package',
  'startup',
  'webhooks-docs',
].map((f) => `<rootDir>/test/e2e/${f}.e2e-spec.ts`);

/** Jest's Node environment plus a cache that lives as long as the worker (test/support/worker-environment.cjs). */
const testEnvironment = '<rootDir>/test/support/worker-environment.cjs';

// The client's sources import each other as './x.js' (what its ESM build needs);
// in the tests those are the .ts files beside them.
const moduleNameMapper = { '^(\\.{1,2}/.*)\\.js$': '$1' };

/**
 * How busy the machine already is when the run starts (the 1-minute load
 * average per core, at least 1, at most 4). The default per-test timeout is
 * multiplied by it: on a machine busy with other work (a newcomer's laptop
 * compiling, a shared CI host at load 20) tests that pass alone were timing
 * out, because 30 s assumed an idle machine. An idle machine keeps 30 s.
 */
const { availableParallelism, loadavg } = require('node:os');
const BUSY = Math.min(4, Math.max(1, loadavg()[0] / availableParallelism()));

module.exports = {
  // Three workers on this 2-core machine: a run with two kept the cores about
  // half busy (its files wait on PostgreSQL, child processes, timers and the
  // browser as much as they compute); JEST_MAX_WORKERS overrides.
  maxWorkers: Number(process.env.JEST_MAX_WORKERS) || 3,
  testSequencer: '<rootDir>/test/support/heavy-first-sequencer.cjs',
  // A worker asked to end gets this long to exit by itself before Jest kills it
  // ("failed to exit gracefully"). Jest's 500 ms was too short on this 2-core
  // machine under load: at the end of a full run a worker with nothing left open
  // (a probe of process.getActiveResourcesInfo() after each file's hooks saw only
  // its pipes; a timer armed at the end message never got to run) was still busy
  // tearing down its heap. A real leak still shows: it never exits, and is killed.
  workerGracefulExitTimeout: 5000,
  testTimeout: Math.round(30000 * BUSY),
  projects: [
    {
      displayName: 'unit',
      testEnvironment: 'node',
      rootDir: __dirname,
      testMatch: [
        '<rootDir>/src/**/*.spec.ts',
        '<rootDir>/test/unit/**/*.spec.ts',
        '<rootDir>/clients/typescript/test/**/*.spec.ts',
      ],
      // (test/unit/dashboard-*.spec.ts cover the dashboard's own helpers.)
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
    },
    {
      displayName: 'medium',
      testEnvironment,
      rootDir: __dirname,
      testMatch: ['<rootDir>/test/medium/**/*.medium-spec.ts'],
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      displayName: 'process',
      testEnvironment,
      rootDir: __dirname,
      testMatch: PROCESS_SPECS,
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
      setupFilesAfterEnv: ['<rootDir>/test/support/openapi-after-each.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    {
      displayName: 'e2e',
      testEnvironment,
      rootDir: __dirname,
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      testPathIgnorePatterns: [
        '/node_modules/',
        ...PROCESS_SPECS.map((p) => p.replace('<rootDir>', '')),
      ],
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
      setupFilesAfterEnv: ['<rootDir>/test/support/openapi-after-each.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
    // The opt-in Fastify adapter (HTTP_ADAPTER=fastify): a smoke set of the files
    // that exercise the HTTP layer itself, so it cannot silently break. The rest
    // of the suite runs once, on the default Express adapter (the bench found
    // Fastify gains nothing on writes; running everything twice doubled the suite).
    {
      displayName: 'e2e-fastify',
      testEnvironment,
      rootDir: __dirname,
      testMatch: FASTIFY_SMOKE.map((f) => `<rootDir>/test/e2e/${f}.e2e-spec.ts`),
      transform,
      transformIgnorePatterns,
      moduleNameMapper,
      globals: { JOMA_TEST_HTTP_ADAPTER: 'fastify' },
      setupFilesAfterEnv: ['<rootDir>/test/support/openapi-after-each.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
};
