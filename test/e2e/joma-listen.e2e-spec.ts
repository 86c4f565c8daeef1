import { createServer } from 'node:net';

import { listen, type Listener } from '../../clients/typescript/src/listen';
import { verifyWebhook } from '../../clients/typescript/src/webhooks';
import { createApp, CreatedApp } from '../support/factories';
import { createInvoice, createPayment, settle } from '../support/payments';
import { createTestApp, TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { eventually, workersOf } from '../support/webhooks';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/**
 * `joma listen` (clients/typescript/src/listen.ts) against a live instance:
 * a sandbox payment of an invoice reaches a consumer on this machine, with
 * a signature the consumer verifies, both when polling GET /events and
 * behind a public URL (a registered TEST endpoint, real deliveries).
 */
describe('joma listen', () => {
  let t: TestApp;
  let app: CreatedApp;
  let consumer: WebhookReceiver;
  let listener: Listener | null = null;
  const lines: string[] = [];

  beforeAll(async () => {
    t = await createTestApp();
    app = await createApp(t);
    consumer = await WebhookReceiver.start();
  });
  afterEach(async () => {
    await listener?.stop();
    listener = null;
  });
  afterAll(async () => {
    await workersOf(t).stop();
    await consumer.close();
    await t.close();
  });

  const payAnInvoice = async () => {
    const invoice = await createInvoice(t, app.TEST);
    const payment = await createPayment(t, app.TEST, {
      invoiceId: invoice.id,
      amountMinor: invoice.totalMinor,
    });
    expect((await settle(t, app.TEST, payment.id)).status).toBe(200);
    return { invoice, payment };
  };

  it('without a public URL: polls GET /events and forwards each new event, signed with the session secret', async () => {
    const before = await createInvoice(t, app.TEST); // an older event: not forwarded
    listener = await listen({
      baseUrl: t.baseUrl,
      apiKey: app.TEST.apiKey,
      apiSecret: app.TEST.apiSecret,
      forwardTo: consumer.url('/poll'),
      intervalMs: 50,
      log: (line) => lines.push(line),
    });
    expect(listener.source).toBe('events');
    expect(lines.join('\n')).toContain(listener.secret);
    const { invoice, payment } = await payAnInvoice();
    const got = await consumer.waitFor(3);
    const hooks = got.map((r) => verifyWebhook(r.raw, r.headers, listener!.secret));
    expect(hooks.map((h) => h.event.type)).toEqual([
      'invoice.issued',
      'payment.succeeded',
      'invoice.paid',
    ]);
    const paid = hooks[2].event;
    if (paid.type !== 'invoice.paid') throw new Error('narrowed by type');
    expect(paid.data).toMatchObject({ invoice_id: invoice.id, payment_id: payment.id });
    expect(paid.data.invoice_id).not.toBe(before.id);
    expect(paid).toMatchObject({ mode: 'TEST', app_id: app.id, schema_version: 1 });
    // The body is what a delivery of that event would carry (keys in the envelope's order).
    expect(got[1].raw.toString()).toMatch(
      /^\{"id":\d+,"type":"payment\.succeeded","created_at":"[^"]+","mode":"TEST","app_id":\d+,"schema_version":1,"data":\{"amount_minor":/,
    );
    expect(
      lines.some((l) => /--> payment\.succeeded \[evt_\d+\] {2}POST .*\/poll \[200\]/.test(l)),
    ).toBe(true);
    expect(listener.forwarded()).toBe(3);
  });

  it('behind a public URL: registers a TEST endpoint, forwards real deliveries byte for byte, and reuses the endpoint next time', async () => {
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}/`;
    const start = () =>
      listen({
        baseUrl: t.baseUrl,
        apiKey: app.TEST.apiKey,
        apiSecret: app.TEST.apiSecret,
        forwardTo: consumer.url('/deliveries'),
        publicUrl,
        port,
        events: ['payment.succeeded'],
        log: (line) => lines.push(line),
      });
    listener = await start();
    expect(listener.source).toBe('deliveries');
    await workersOf(t).start();
    const { payment } = await payAnInvoice();
    // Events recorded before the endpoint existed may be fanned out to it too: find this payment's.
    const secret = listener.secret;
    const ours = () =>
      consumer.received
        .filter((r) => r.path === '/deliveries')
        .map((r) => verifyWebhook(r.raw, r.headers, secret))
        .filter(
          (h) => h.event.type === 'payment.succeeded' && h.event.data.payment_id === payment.id,
        );
    await eventually(async () => ours().length > 0, 10_000, 'the delivery forwarded');
    const [hook] = ours();
    expect(ours()).toHaveLength(1);
    // Only the subscribed type is forwarded.
    expect(
      consumer.received
        .filter((r) => r.path === '/deliveries')
        .every((r) => r.headers['x-webhook-event'] === 'payment.succeeded'),
    ).toBe(true);
    // Joma's own signature and delivery id, passed through.
    expect(hook.id).toBe(String(hook.event.id));
    // The consumer had the bytes before Joma recorded the 2xx it answered: wait for the record.
    const rows = await eventually(
      async () => {
        const { rows: r } = await t.db.query(
          `SELECT d.status, e.url FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
            WHERE d.id = $1`,
          [hook.event.id],
        );
        return r[0]?.status === 'PENDING' ? null : r;
      },
      10_000,
      'the delivery to be recorded',
    );
    expect(rows).toEqual([{ status: 'DELIVERED', url: publicUrl }]);

    await listener.stop();
    listener = await start();
    const endpoints = await t.db.query(
      `SELECT count(*)::int AS n FROM webhook_endpoints WHERE app_id = $1 AND url = $2`,
      [app.id, publicUrl],
    );
    expect(endpoints.rows[0].n).toBe(1);
    expect(lines.some((l) => l.includes('Reusing webhook endpoint'))).toBe(true);
  });

  it('refuses to register an endpoint with a LIVE key', async () => {
    await expect(
      listen({
        baseUrl: t.baseUrl,
        apiKey: app.LIVE.apiKey,
        apiSecret: app.LIVE.apiSecret,
        publicUrl: 'https://tunnel.example/',
        log: () => undefined,
      }),
    ).rejects.toThrow(/TEST endpoints only/);
  });
});
