import { createApp, type CreatedApp } from './factories';
import { expectBalancedLedger } from './ledger';
import { createTestApp, type TestApp } from './test-app';

/**
 * The set-up most e2e files share: the real app on a cloned database with
 * one app of its own, closed after the file; with `balancedLedger`, the
 * ledger is checked after every test. Its fields are set once the file's
 * `beforeAll` hooks run:
 *
 *   const fixture = appFixture({ balancedLedger: true });
 *   beforeAll(() => { ({ t, app } = fixture); });
 */
export function appFixture(opts: { balancedLedger?: boolean } = {}): {
  t: TestApp;
  app: CreatedApp;
} {
  const fixture = {} as { t: TestApp; app: CreatedApp };
  beforeAll(async () => {
    fixture.t = await createTestApp();
    fixture.app = await createApp(fixture.t);
  });
  if (opts.balancedLedger) afterEach(() => expectBalancedLedger(fixture.t.db));
  afterAll(() => fixture.t?.close());
  return fixture;
}
