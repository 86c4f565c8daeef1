import type request from 'supertest';

import { WebhookFanout } from '../../src/webhooks/delivery/webhook-fanout';
import { createPrice, createProduct, MONTHLY, ONE_TIME } from '../support/catalog-factories';
import { adminWith, asApp, bearer, createApp, CreatedApp } from '../support/factories';
import { createInvoice, createPayment, settle } from '../support/payments';
import { createTestApp, TestApp } from '../support/test-app';
import { createEndpoint, deliveriesOfEvent, recordEvent } from '../support/webhooks';

interface Write {
  /** Method and path as /docs-json lists them. */
  route: string;
  /** Sets up what the write needs (with the app's own key), then makes it with `headers`. */
  call: (headers: Record<string, string>) => Promise<request.Response>;
}

/**
 * Decisions section 15 and the amendment of 2026-12-02 to section 14: the
 * audit log holds every write an admin makes through the app routes
 * (payments and re-sends included). The walk takes every write operation
 * of the app routes from the served OpenAPI document, makes it as an
 * acting admin (Bearer token, X-App-Id, X-Mode) and finds the audit row of
 * that very request (its request id) with the admin as actor.
 */
describe('audit log: every write an admin makes through the app routes', () => {
  let t: TestApp;
  let app: CreatedApp;
  let staff: { id: number; email: string; token: string };
  let seq = 0;

  const key = () => asApp(app.TEST);
  const http = () => t.http();

  async function subscription(active: boolean): Promise<number> {
    const product = await createProduct(t, app, 'TEST', { name: `Plan ${++seq}` });
    const price = await createPrice(t, app, product.id, MONTHLY);
    const ref = `sub-${seq}`;
    const bought = await http()
      .post('/api/v1/purchases')
      .set(key())
      .send({ priceId: price.id, customerReference: ref });
    if (active) {
      const payment = await createPayment(t, app.TEST, {
        amountMinor: MONTHLY.amountMinor,
        invoiceId: bought.body.data.invoiceId,
        customerReference: ref,
      });
      await settle(t, app.TEST, payment.id);
    }
    return bought.body.data.subscriptionId;
  }

  async function delivery(): Promise<{ endpointId: number; deliveryId: number }> {
    const endpoint = await createEndpoint(t, app.TEST, {
      url: `https://hooks${++seq}.example.com/hook`,
    });
    const eventId = await recordEvent(t, { appId: app.id, mode: 'TEST' }, 'invoice.issued', {
      invoice_id: 1,
    });
    await t.app.get(WebhookFanout).fanOutBatch();
    const row = (await deliveriesOfEvent(t, eventId)).find((d) => d.endpoint_id === endpoint.id)!;
    // A finished delivery, so that the re-send queues it again.
    await t.db.query(
      `UPDATE webhook_deliveries SET status = 'PARKED', next_attempt_at = NULL WHERE id = $1`,
      [row.id],
    );
    return { endpointId: endpoint.id, deliveryId: row.id };
  }

  /** The endpoints an app may have are few (5 per mode): each test that needs one deletes it after. */
  async function withEndpoint<T>(use: (id: number) => Promise<T>): Promise<T> {
    const endpoint = await createEndpoint(t, app.TEST, {
      url: `https://hooks${++seq}.example.com/hook`,
    });
    try {
      return await use(endpoint.id);
    } finally {
      await http().delete(`/api/v1/webhook-endpoints/${endpoint.id}`).set(key());
    }
  }

  const WRITES: Write[] = [
    {
      route: 'POST /api/v1/benefits',
      call: (h) => http().post('/api/v1/benefits').set(h).send({ lookupKey: 'walk', name: 'Walk' }),
    },
    {
      route: 'POST /api/v1/benefits/{id}/activate',
      call: async (h) => {
        const b = await http()
          .post('/api/v1/benefits')
          .set(key())
          .send({ lookupKey: `b-${++seq}`, name: 'B' });
        return http().post(`/api/v1/benefits/${b.body.data.id}/activate`).set(h).send();
      },
    },
    {
      route: 'POST /api/v1/products',
      call: (h) => http().post('/api/v1/products').set(h).send({ name: 'Walked product' }),
    },
    {
      route: 'PATCH /api/v1/products/{id}',
      call: async (h) => {
        const product = await createProduct(t, app, 'TEST', { name: `Renamed ${++seq}` });
        return http()
          .patch(`/api/v1/products/${product.id}`)
          .set(h)
          .send({ name: 'Walked rename', description: null });
      },
    },
    {
      route: 'PATCH /api/v1/benefits/{id}',
      call: async (h) => {
        const b = await http()
          .post('/api/v1/benefits')
          .set(key())
          .send({ lookupKey: `b-${++seq}`, name: 'B' });
        return http().patch(`/api/v1/benefits/${b.body.data.id}`).set(h).send({ name: 'Walked' });
      },
    },
    {
      route: 'POST /api/v1/products/{id}/prices',
      call: async (h) => {
        const product = await createProduct(t, app);
        return http().post(`/api/v1/products/${product.id}/prices`).set(h).send(ONE_TIME);
      },
    },
    {
      route: 'POST /api/v1/products/{id}/prices/{priceId}/deactivate',
      call: async (h) => {
        const product = await createProduct(t, app);
        const price = await createPrice(t, app, product.id, ONE_TIME);
        return http()
          .post(`/api/v1/products/${product.id}/prices/${price.id}/deactivate`)
          .set(h)
          .send();
      },
    },
    {
      route: 'POST /api/v1/payments',
      call: (h) =>
        http().post('/api/v1/payments').set(h).send({ amountMinor: 50000, customerReference: 'w' }),
    },
    {
      route: 'POST /api/v1/payments/{id}/cancel',
      call: async (h) => {
        const p = await createPayment(t, app.TEST);
        return http().post(`/api/v1/payments/${p.id}/cancel`).set(h).send();
      },
    },
    {
      route: 'POST /api/v1/payments/{id}/refunds',
      call: async (h) => {
        const p = await createPayment(t, app.TEST);
        await settle(t, app.TEST, p.id);
        return http().post(`/api/v1/payments/${p.id}/refunds`).set(h).send({});
      },
    },
    {
      route: 'POST /api/v1/subscriptions/{id}/pause',
      call: async (h) =>
        http()
          .post(`/api/v1/subscriptions/${await subscription(true)}/pause`)
          .set(h)
          .send({}),
    },
    {
      route: 'POST /api/v1/subscriptions/{id}/resume',
      call: async (h) => {
        const id = await subscription(true);
        await http().post(`/api/v1/subscriptions/${id}/pause`).set(key()).send({});
        return http().post(`/api/v1/subscriptions/${id}/resume`).set(h).send({});
      },
    },
    {
      route: 'POST /api/v1/subscriptions/{id}/cancel',
      call: async (h) =>
        http()
          .post(`/api/v1/subscriptions/${await subscription(true)}/cancel`)
          .set(h)
          .send({ atPeriodEnd: true }),
    },
    {
      route: 'POST /api/v1/invoices',
      call: (h) =>
        http()
          .post('/api/v1/invoices')
          .set(h)
          .send({
            customerReference: 'w',
            lineItems: [{ description: 'Walk', qty: 1, unitAmountMinor: 1000 }],
          }),
    },
    {
      route: 'PUT /api/v1/invoices/template',
      call: (h) =>
        http()
          .put('/api/v1/invoices/template')
          .set(h)
          .send({ companyName: `Walk ${++seq}` }),
    },
    {
      route: 'POST /api/v1/invoices/{id}/void',
      call: async (h) => {
        const invoice = await createInvoice(t, app.TEST);
        return http().post(`/api/v1/invoices/${invoice.id}/void`).set(h).send();
      },
    },
    {
      route: 'POST /api/v1/purchases',
      call: async (h) => {
        const product = await createProduct(t, app);
        const price = await createPrice(t, app, product.id, ONE_TIME);
        return http()
          .post('/api/v1/purchases')
          .set(h)
          .send({ priceId: price.id, customerReference: 'w' });
      },
    },
    {
      route: 'POST /api/v1/test-helpers/payments/{id}/settle',
      call: async (h) => {
        const p = await createPayment(t, app.TEST);
        return http()
          .post(`/api/v1/test-helpers/payments/${p.id}/settle`)
          .set(h)
          .send({ outcome: 'succeeded' });
      },
    },
    {
      route: 'POST /api/v1/test-helpers/payments/{id}/expire',
      call: async (h) => {
        const p = await createPayment(t, app.TEST);
        return http().post(`/api/v1/test-helpers/payments/${p.id}/expire`).set(h).send();
      },
    },
    {
      route: 'POST /api/v1/test-helpers/subscriptions/{id}/advance',
      call: async (h) =>
        http()
          .post(`/api/v1/test-helpers/subscriptions/${await subscription(true)}/advance`)
          .set(h)
          .send(),
    },
    {
      route: 'POST /api/v1/webhook-endpoints',
      call: async (h) => {
        const res = await http()
          .post('/api/v1/webhook-endpoints')
          .set(h)
          .send({ url: `https://hooks${++seq}.example.com/hook`, events: ['*'] });
        await http().delete(`/api/v1/webhook-endpoints/${res.body.data.id}`).set(key());
        return res;
      },
    },
    {
      route: 'PATCH /api/v1/webhook-endpoints/{id}',
      call: (h) =>
        withEndpoint((id) =>
          http().patch(`/api/v1/webhook-endpoints/${id}`).set(h).send({ description: 'walked' }),
        ),
    },
    {
      route: 'DELETE /api/v1/webhook-endpoints/{id}',
      call: async (h) => {
        const endpoint = await createEndpoint(t, app.TEST, {
          url: `https://hooks${++seq}.example.com/hook`,
        });
        return http().delete(`/api/v1/webhook-endpoints/${endpoint.id}`).set(h);
      },
    },
    {
      route: 'POST /api/v1/webhook-endpoints/{id}/rotate-secret',
      call: (h) =>
        withEndpoint((id) =>
          http().post(`/api/v1/webhook-endpoints/${id}/rotate-secret`).set(h).send(),
        ),
    },
    {
      route: 'POST /api/v1/webhook-endpoints/{id}/test',
      call: (h) =>
        withEndpoint((id) => http().post(`/api/v1/webhook-endpoints/${id}/test`).set(h).send()),
    },
    {
      route: 'POST /api/v1/webhook-endpoints/{id}/deliveries/{deliveryId}/resend',
      call: async (h) => {
        const { endpointId, deliveryId } = await delivery();
        try {
          return await http()
            .post(`/api/v1/webhook-endpoints/${endpointId}/deliveries/${deliveryId}/resend`)
            .set(h)
            .send();
        } finally {
          await http().delete(`/api/v1/webhook-endpoints/${endpointId}`).set(key());
        }
      },
    },
  ];

  beforeAll(async () => {
    t = await createTestApp();
    app = await createApp(t);
    staff = await adminWith(
      t,
      ['invoices:read', 'invoices:write', 'webhooks:operate', 'catalog:write'],
      { appIds: [app.id] },
    );
  });
  afterAll(() => t.close());

  const auditOfRequest = async (requestId: string) =>
    (
      await t.db.query(
        `SELECT action, target_type, target_id, actor_user_id, actor_email, after
           FROM audit_events WHERE request_id = $1 ORDER BY id`,
        [requestId],
      )
    ).rows;

  it('the walk covers every write of the app routes (a new one must be added here)', async () => {
    const doc = (await http().get('/docs-json')).body as {
      paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>>;
    };
    const writes: string[] = [];
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (/^\/api\/v1\/(admin|auth)\//.test(path)) continue;
      for (const [method, op] of Object.entries(ops)) {
        if (['get', 'head', 'parameters'].includes(method)) continue;
        // App routes: those an admin token may call, acting on an app (section 15).
        if (op.security?.some((s) => 'adminBearer' in s))
          writes.push(`${method.toUpperCase()} ${path}`);
      }
    }
    expect(writes.sort()).toEqual(WRITES.map((w) => w.route).sort());
  });

  it.each(WRITES.map((w) => [w.route, w] as const))(
    '%s: audited with the admin as actor, in the app and mode acted on',
    async (_route, w) => {
      const requestId = `walk-${++seq}`;
      const res = await w.call({
        ...bearer(staff.token),
        'X-App-Id': String(app.id),
        'X-Mode': 'TEST',
        'X-Request-Id': requestId,
        'Idempotency-Key': requestId,
      });
      expect(res.status).toBeLessThan(300);
      const rows = await auditOfRequest(requestId);
      expect(rows.length).toBeGreaterThanOrEqual(1);
      for (const row of rows) {
        expect(row).toMatchObject({ actor_user_id: staff.id, actor_email: staff.email });
        // Rows that name an app name the one acted on (catalog rows keep their changed fields only).
        if (row.after && 'applicationId' in row.after)
          expect(row.after).toMatchObject({ applicationId: app.id, mode: 'TEST' });
      }
    },
  );

  it('an app key making the same writes leaves no audit row', async () => {
    const res = await http()
      .post('/api/v1/payments')
      .set({ ...key(), 'X-Request-Id': 'walk-by-key' })
      .send({ amountMinor: 50000, customerReference: 'k' });
    expect(res.status).toBe(201);
    expect(await auditOfRequest('walk-by-key')).toEqual([]);
  });
});
