/**
 * A value kept for the life of the Jest worker process, across test files
 * (see worker-environment.cjs); outside that environment (a unit spec, a
 * script), a cache of this module's life.
 */
const fallback = new Map<string, unknown>();

function store(): Map<string, unknown> {
  return (
    (globalThis as { __JOMA_WORKER_CACHE__?: Map<string, unknown> }).__JOMA_WORKER_CACHE__ ??
    fallback
  );
}

/** The value under `key`, made by `make` the first time this worker asks. */
export function perWorker<T>(key: string, make: () => T): T {
  const s = store();
  if (!s.has(key)) s.set(key, make());
  return s.get(key) as T;
}
