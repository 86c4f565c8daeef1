import { createServer } from 'node:net';

import { asApp, createApp, CreatedApp } from '../support/factories';
import { createTestApp, TestApp } from '../support/test-app';
import { createEndpoint, eventually, recordEvent, workersOf } from '../support/webhooks';

/** An IPv4 or IPv6 address anywhere in a text. */
const AN_ADDRESS = /\b\d{1,3}(?:\.\d{1,3}){3}\b|(?:[0-9a-f]{0,4}:){2,}[0-9a-f]{0,4}/i;

/** A port on 127.0.0.1 that nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as { port: number };
  await new Promise<void>((ok) => server.close(() => ok()));
  return port;
}

/**
 * Decisions 14 as amended on 2026-12-02: no recorded webhook delivery error
 * (guard refusals and connection errors alike) names the address a host
 * resolved to; errors name the URL's host only. `hooks.localhost` resolves
 * to 127.0.0.1 and ::1 (RFC 6761) without any DNS server.
 */
describe('webhooks: recorded delivery errors name the host, never the address it resolved to', () => {
  let t: TestApp;
  let app: CreatedApp;

  beforeAll(async () => {
    t = await createTestApp({ config: { webhookTimeoutMs: 3000, webhookPollIntervalMs: 100 } });
    app = await createApp(t);
    await workersOf(t).start();
  });
  afterAll(() => t.close());
  afterEach(() => {
    (t.config as { webhookAllowPrivateTargets: boolean }).webhookAllowPrivateTargets = true;
  });

  /** Records an event for the endpoint and waits for its first attempt; the delivery as the app reads it, and the stored rows. */
  async function firstAttempt(endpointId: number) {
    await recordEvent(t, { appId: app.id, mode: 'TEST' }, 'payment.failed', { payment_id: 7 });
    const attempt = await eventually(
      async () =>
        (
          await t.db.query('SELECT * FROM webhook_delivery_attempts WHERE endpoint_id = $1', [
            endpointId,
          ])
        ).rows[0],
      10_000,
      'first attempt',
    );
    const delivery = await eventually(
      async () =>
        (
          await t.db.query(
            'SELECT * FROM webhook_deliveries WHERE endpoint_id = $1 AND attempts = 1 AND locked_by IS NULL',
            [endpointId],
          )
        ).rows[0],
      5000,
      'delivery recorded',
    );
    const view = await t
      .http()
      .get(`/api/v1/webhook-endpoints/${endpointId}/deliveries/${delivery.id}`)
      .set(asApp(app.TEST));
    expect(view.status).toBe(200);
    return { attempt, delivery, view: view.body.data };
  }

  it('a guard refusal: "<host> resolves to a private address"', async () => {
    const port = await closedPort();
    const e = await createEndpoint(t, app.TEST, { url: `http://hooks.localhost:${port}/hook` });
    // The guard on (as in production): the host now resolves to a private address.
    (t.config as { webhookAllowPrivateTargets: boolean }).webhookAllowPrivateTargets = false;
    const { attempt, delivery, view } = await firstAttempt(e.id);
    expect(delivery.status).toBe('RETRYING');
    expect(delivery.last_error).toBe(
      'TARGET_NOT_ALLOWED: hooks.localhost resolves to a private address',
    );
    expect(attempt.error).toBe(delivery.last_error);
    expect(attempt.error).not.toMatch(AN_ADDRESS);
    // Nothing was connected to: no address in the stored attempt or in what the app reads.
    expect(attempt.target_address).toBeNull();
    expect(view.lastError).toBe(delivery.last_error);
    expect(view.attemptLog).toEqual([
      expect.objectContaining({ error: delivery.last_error, targetAddress: null }),
    ]);
  });

  it('a connection error: "connection refused by <host>"', async () => {
    const port = await closedPort();
    const e = await createEndpoint(t, app.TEST, { url: `http://hooks.localhost:${port}/hook` });
    const { attempt, delivery, view } = await firstAttempt(e.id);
    expect(delivery.status).toBe('RETRYING');
    expect(delivery.last_error).toBe('ECONNREFUSED: connection refused by hooks.localhost');
    expect(attempt.error).toBe(delivery.last_error);
    expect(attempt.error).not.toMatch(AN_ADDRESS);
    expect(view.lastError).not.toMatch(AN_ADDRESS);
    const log = view.attemptLog as { error: string | null }[];
    expect(log.map((a) => a.error)).toEqual([delivery.last_error]);
  });
});
