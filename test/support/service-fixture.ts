import type { DynamicModule, Type } from '@nestjs/common';

import { expectBalancedLedger } from './ledger';
import { createTestContext, insertApp, type TestContext } from './test-context';

/** What a service-tier file works with: the real services, a database, a clock, an app. */
export interface ServiceFixture {
  /** The app's services on the cloned database (no HTTP server). */
  c: TestContext;
  /** The file's own app, in TEST mode (the scope every feature service takes). */
  scope: { appId: number; mode: 'TEST' };
  /** One of the real app's providers, as Nest built it. */
  get<T>(type: Type<T>): T;
}

/**
 * The service tier's set-up (the e2e tier's is `appFixture`): the real
 * services of AppModule on a database cloned from the migrated template, one
 * app of the file's own, closed after the file; with `balancedLedger`, the
 * ledger is checked after every test. No HTTP is involved, so a rule proven
 * here costs no server, no OpenAPI document and no serialisation; the HTTP
 * contract of the same feature stays in test/e2e. Fields are set once the
 * file's `beforeAll` hooks have run:
 *
 *   const f = serviceFixture({ balancedLedger: true });
 *   it('…', async () => { const refunds = f.get(RefundsService); … f.scope … });
 */
export function serviceFixture(
  opts: {
    balancedLedger?: boolean;
    appName?: string;
    config?: Parameters<typeof createTestContext>[0];
    /** Test-only modules mounted beside the real app (test/support/no-refund-gateway.ts). */
    imports?: (Type<unknown> | DynamicModule)[];
  } = {},
): ServiceFixture {
  const fixture = {
    get<T>(type: Type<T>): T {
      return fixture.c.app.get(type);
    },
  } as ServiceFixture;
  beforeAll(async () => {
    fixture.c = await createTestContext(opts.config, opts.imports);
    fixture.scope = { appId: await insertApp(fixture.c.db, opts.appName), mode: 'TEST' };
  });
  if (opts.balancedLedger) afterEach(() => expectBalancedLedger(fixture.c.db));
  afterAll(() => fixture.c?.close());
  return fixture;
}
