import type { AddressInfo } from 'node:net';

import {
  createJomaAdminClient,
  createJomaClient,
  createJomaPublicClient,
  JomaApiError,
  paginate,
  unwrap,
  unwrapPage,
  verifyWebhook,
  WebhookDeduper,
} from '../../clients/typescript/src';
import { webhookConsumer } from '../../examples/webhook-consumer/server';
import { createTestApp, SUPER_ADMIN, TestApp } from '../support/test-app';
import { WebhookReceiver } from '../support/webhook-receiver';
import { workersOf } from '../support/webhooks';

/**
 * The README's flow driven entirely through @joma/client and its webhook
 * kit against a real instance: log in, create an app, register an
 * endpoint, issue an invoice, pay it (the sandbox settles it), receive
 * invoice.paid and verify it exactly as a consumer would.
 */
describe('@joma/client against a real Joma', () => {
  let t: TestApp;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    t = await createTestApp({ config: { webhookPollIntervalMs: 100 } });
    await workersOf(t).start();
    receiver = await WebhookReceiver.start();
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('app, invoice, payment, settle, and a verified invoice.paid', async () => {
    const session = await unwrap(
      createJomaPublicClient({ baseUrl: t.baseUrl }).POST('/api/v1/auth/login', {
        body: { email: SUPER_ADMIN.email, password: SUPER_ADMIN.password },
      }),
    );
    const admin = createJomaAdminClient({ baseUrl: t.baseUrl, token: session.token });
    const app = await unwrap(admin.POST('/api/v1/admin/apps', { body: { name: 'SDK shop' } }));
    const test = app.credentials.find((c) => c.mode === 'TEST')!;
    const joma = createJomaClient({
      baseUrl: t.baseUrl,
      apiKey: test.apiKey,
      apiSecret: test.apiSecret,
    });

    const endpoint = await unwrap(
      joma.POST('/api/v1/webhook-endpoints', {
        body: { url: receiver.url(), events: ['invoice.paid'] },
      }),
    );
    const invoice = await unwrap(
      joma.POST('/api/v1/invoices', {
        body: {
          customerReference: 'cust-sdk',
          lineItems: [{ description: 'Notebook', qty: 3, unitAmountMinor: 30000 }],
        },
      }),
    );
    expect(invoice).toMatchObject({ number: 'INV-000001', status: 'ISSUED', totalMinor: 90000 });
    const payment = await unwrap(
      joma.POST('/api/v1/payments', { body: { invoiceId: invoice.id, amountMinor: 90000 } }),
    );
    await unwrap(
      joma.POST('/api/v1/test-helpers/payments/{id}/settle', {
        params: { path: { id: payment.id } },
        body: { outcome: 'succeeded' },
      }),
    );
    const paid = await unwrap(
      joma.GET('/api/v1/invoices/{id}', { params: { path: { id: invoice.id } } }),
    );
    expect(paid.status).toBe('PAID');

    const [delivery] = await receiver.waitFor(1);
    const deduper = new WebhookDeduper();
    const verified = verifyWebhook<{ type: string; data: Record<string, unknown> }>(
      delivery.raw,
      delivery.headers,
      endpoint.secret,
      { nowSeconds: Math.floor(t.clock.nowMs() / 1000) },
    );
    expect(verified).toMatchObject({
      type: 'invoice.paid',
      version: 'v2',
      event: {
        type: 'invoice.paid',
        data: { invoice_id: invoice.id, number: 'INV-000001', amount_due_minor: 0, status: 'paid' },
      },
    });
    expect(deduper.firstTime(verified.id)).toBe(true);
    expect(deduper.firstTime(verified.id)).toBe(false);
    expect(() => verifyWebhook(delivery.raw, delivery.headers, 'whsec_wrong')).toThrow(/mismatch/);

    // The example consumer: verifies, acknowledges, handles a delivery once.
    const handled: unknown[] = [];
    const consumer = webhookConsumer(endpoint.secret, async (event) => void handled.push(event));
    const server = consumer.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const post = (body: Buffer) =>
        fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/joma/webhooks`, {
          method: 'POST',
          headers: Object.fromEntries(
            Object.entries(delivery.headers).filter(
              ([k]) => k.startsWith('x-webhook-') || k === 'content-type',
            ),
          ) as Record<string, string>,
          body,
        });
      expect((await post(delivery.raw)).status).toBe(200);
      expect((await post(delivery.raw)).status).toBe(200); // Joma's retry of the same delivery
      expect((await post(Buffer.concat([delivery.raw, Buffer.from(' ')]))).status).toBe(400);
      await new Promise((r) => setImmediate(r));
      expect(handled).toEqual([verified.event]);
    } finally {
      await new Promise((r) => server.close(r));
    }

    // Lists page by cursor; errors come back typed.
    for (let i = 0; i < 3; i++)
      await unwrap(
        joma.POST('/api/v1/invoices', {
          body: {
            customerReference: 'cust-sdk',
            lineItems: [{ description: 'Pen', qty: 1, unitAmountMinor: 1000 }],
          },
        }),
      );
    const numbers: string[] = [];
    for await (const inv of paginate((cursor) =>
      unwrapPage(joma.GET('/api/v1/invoices', { params: { query: { size: 2, cursor } } })),
    ))
      numbers.push(inv.number);
    expect(numbers).toEqual(['INV-000004', 'INV-000003', 'INV-000002', 'INV-000001']);
    const missing = await unwrap(
      joma.GET('/api/v1/invoices/{id}', { params: { path: { id: 999_999 } } }),
    ).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(JomaApiError);
    expect(missing).toMatchObject({ status: 404, errorCode: 'RESOURCE_NOT_FOUND' });
  });
});
