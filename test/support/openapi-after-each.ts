import { conformance } from './openapi-conformance';

/**
 * Fails the test whose requests got a response the OpenAPI document does not
 * describe (see openapi-conformance.ts). Registered for every e2e file.
 */
afterEach(() => {
  const problems = conformance.flatMap((c) => c.drain());
  if (problems.length > 0)
    throw new Error(
      `Responses the OpenAPI document (/docs-json) does not describe:\n  ${[...new Set(problems)].join('\n  ')}`,
    );
});
