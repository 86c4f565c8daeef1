/**
 * The test environment of the database-backed projects: Jest's Node
 * environment plus one object that lives as long as the worker process, not
 * the file. Jest gives every test file a fresh module registry, so a cache in
 * a test module is rebuilt by every file; this environment module is loaded
 * once per worker by Jest itself, and hands each file the same Map as
 * `globalThis.__JOMA_WORKER_CACHE__`.
 *
 * What it holds (test/support/worker-cache.ts): the OpenAPI document the app
 * builds (the same for every test app of a run without extra modules) and the
 * compiled validators of the conformance check, so about 190 app boots build
 * and compile them once per worker instead of once per file.
 */
const { TestEnvironment } = require('jest-environment-node');

const workerCache = new Map();

class WorkerEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.global.__JOMA_WORKER_CACHE__ = workerCache;
  }
}

module.exports = WorkerEnvironment;
