import { Clock } from '../../src/common/clock/clock';
import { AppConfig } from '../../src/config/app-config';
import { BkashGateway } from '../../src/gateways/bkash';
import { GatewayCredentialsService } from '../../src/gateways/credentials/gateway-credentials.service';
import { BkashFake } from '../support/bkash-fake';
import { asApp, createApp, CreatedApp } from '../support/factories';
import { setGateway } from '../support/gateways';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * bKash tokens (decisions section 11): one grant or refresh at a time per
 * app and mode, in the process and across replicas; a refused token is
 * granted again once; new credentials discard the old token. bKash blocks
 * a merchant that asks for tokens more than twice an hour.
 */
describe('bKash tokens: no storms', () => {
  let fake: BkashFake;
  let t: TestApp;

  beforeAll(async () => {
    fake = await new BkashFake().start();
    // Each grant takes a while, so concurrent callers overlap with it.
    fake.tokenDelayMs = 150;
    t = await createTestApp({
      config: { bkashSandboxUrl: fake.baseUrl, gatewayTimeoutMs: 2000, jwtTtlMinutes: 600 },
    });
  });
  afterEach(() => {
    fake.expireTokens = 0;
    fake.tokenCallsFail = false;
    t.clock.reset();
  });
  afterAll(async () => {
    await t.close();
    await fake.stop();
  });

  const http = () => t.http();
  async function bkashApp(): Promise<CreatedApp> {
    const a = await createApp(t);
    expect((await setGateway(t, a.id, 'bkash', 'TEST', fake.app, true)).status).toBe(200);
    return a;
  }
  const checkout = (a: CreatedApp, i: number) =>
    http()
      .post('/api/v1/payments')
      .set(asApp(a.TEST))
      .send({ amountMinor: 1000 + i, customerReference: `tok-${i}` });

  it('20 concurrent checkouts of a new app: one grant call', async () => {
    const a = await bkashApp();
    const before = fake.grants;
    const all = await Promise.all(Array.from({ length: 20 }, (_, i) => checkout(a, i)));
    expect(all.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(fake.grants - before).toBe(1);
  });

  it("two replicas (each with its own in-process single flight) share one grant through the database's lease", async () => {
    const a = await bkashApp();
    const ctx = await t.app
      .get(GatewayCredentialsService)
      .contextFor({ appId: a.id, mode: 'TEST' }, 'bkash');
    const replica = () =>
      new BkashGateway(
        t.app.get(AppConfig),
        t.app.get(GatewayCredentialsService),
        t.app.get(Clock),
      );
    const [one, two] = [replica(), replica()];
    const before = fake.grants;
    const statuses = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 ? one : two)).map((g, i) =>
        g.createCheckout(
          {
            reference: `pay_replica_${a.id}_${i}`,
            amountMinor: 2000,
            currency: 'BDT',
            merchantName: 'x',
            customer: { reference: 'c' },
            returnUrl: 'http://127.0.0.1/return',
            ipnUrl: 'http://127.0.0.1/ipn',
            expiresAt: new Date(Date.now() + 60_000),
          },
          ctx,
        ),
      ),
    );
    expect(statuses).toHaveLength(10);
    expect(fake.grants - before).toBe(1);
  });

  it('a token bKash refuses (HTTP 401) is granted again once and the call retried; an hour of steady use asks for at most two', async () => {
    const a = await bkashApp();
    expect((await checkout(a, 1)).status).toBe(201);
    const before = fake.grants;
    fake.expireTokens = 1;
    const res = await checkout(a, 2);
    expect(res.status).toBe(201);
    expect(fake.grants - before).toBe(1);
    // Steady use for an hour: the token is refreshed once, shortly before it expires.
    const hourStart = fake.grants;
    for (let minute = 0; minute < 60; minute += 5) {
      t.clock.advance(5 * 60_000);
      expect((await checkout(a, 100 + minute)).status).toBe(201);
    }
    expect(fake.grants - hourStart).toBeLessThanOrEqual(2);
  });

  it('a token refused again after the new grant fails the checkout (503) without a storm of grants', async () => {
    const a = await bkashApp();
    expect((await checkout(a, 1)).status).toBe(201);
    const before = fake.grants;
    fake.expireTokens = 5;
    const res = await checkout(a, 2);
    expect(res.status).toBe(503);
    expect(fake.grants - before).toBe(1);
  });

  it('a refusal that arrives after a fresh token was stored leaves that token alone (no extra grant)', async () => {
    const a = await bkashApp();
    expect((await checkout(a, 1)).status).toBe(201);
    const credentials = t.app.get(GatewayCredentialsService);
    const ctx = await credentials.contextFor({ appId: a.id, mode: 'TEST' }, 'bkash');
    const fresh = await credentials.token<{ idToken: string }>(ctx, 'bkash', t.clock.nowMs(), 0);
    // A late 401 for an older token: nothing discarded.
    await credentials.discardToken(
      ctx,
      'bkash',
      (stored) => (stored as { idToken: string }).idToken === 'tok_old',
    );
    expect(await credentials.token(ctx, 'bkash', t.clock.nowMs(), 0)).toEqual(fresh);
    const before = fake.grants;
    expect((await checkout(a, 2)).status).toBe(201);
    expect(fake.grants - before).toBe(0);
    // The refusal of the stored token itself discards it.
    await credentials.discardToken(
      ctx,
      'bkash',
      (stored) => (stored as { idToken: string }).idToken === fresh!.idToken,
    );
    expect(await credentials.token(ctx, 'bkash', t.clock.nowMs(), 0)).toBeNull();
  });

  it('replacing the credentials discards the token: the next call is granted with the new ones', async () => {
    const a = await bkashApp();
    expect((await checkout(a, 1)).status).toBe(201);
    const stored = await t.db.query(`SELECT sealed FROM gateway_tokens WHERE app_id = $1`, [a.id]);
    expect(stored.rows[0].sealed).not.toBeNull();
    await setGateway(t, a.id, 'bkash', 'TEST', fake.app);
    const after = await t.db.query(`SELECT sealed FROM gateway_tokens WHERE app_id = $1`, [a.id]);
    expect(after.rows[0].sealed).toBeNull();
    const before = fake.grants;
    expect((await checkout(a, 2)).status).toBe(201);
    expect(fake.grants - before).toBe(1);
  });

  it('bKash failing its token calls: one call per back-off step (1 s doubling), none retried, checkouts 503 naming bKash meanwhile (decisions 19)', async () => {
    const a = await bkashApp();
    // Time stands still but for the steps below: a busy machine cannot end a back-off step early.
    t.clock.freeze();
    fake.tokenCallsFail = true;
    const before = fake.grants;
    const refused = [];
    for (let i = 0; i < 5; i++) refused.push(await checkout(a, 100 + i));
    for (const r of refused) {
      expect(r.status).toBe(503);
      expect(r.body.meta.errorCode).toBe('SERVICE_UNAVAILABLE');
      expect(r.body.meta.message).toMatch(/bkash/);
    }
    // One token call for five checkouts: never re-sent by the HTTP layer, nothing during the back-off.
    expect(fake.grants - before).toBe(1);
    t.clock.advance(1_001);
    expect((await checkout(a, 110)).status).toBe(503);
    expect((await checkout(a, 111)).status).toBe(503);
    expect(fake.grants - before).toBe(2);
    // The second failure doubled the step: 1 s later still nothing is sent.
    t.clock.advance(1_001);
    expect((await checkout(a, 112)).status).toBe(503);
    expect(fake.grants - before).toBe(2);
    // bKash answers again: the next step grants once and checkouts open.
    fake.tokenCallsFail = false;
    t.clock.advance(1_001);
    expect((await checkout(a, 113)).status).toBe(201);
    expect((await checkout(a, 114)).status).toBe(201);
    expect(fake.grants - before).toBe(3);
    t.clock.reset();
  });
});
