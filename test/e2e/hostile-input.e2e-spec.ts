import { appFixture } from '../support/app-fixture';
import { asApp, CreatedApp } from '../support/factories';
import { TestApp } from '../support/test-app';

/** Objects nested so that the whole request body is `levels` deep (the body itself is level 1). */
function bodyWithDepth(levels: number, leaf: unknown): Record<string, unknown> {
  let metadata: unknown = leaf;
  for (let i = 0; i < levels - 2; i++) metadata = { a: metadata };
  return { amountMinor: 50000, customerReference: 'hostile', metadata: { a: metadata } };
}

describe('hostile input on the money routes: 400, never a 500', () => {
  let t: TestApp;
  let app: CreatedApp;
  const fixture = appFixture();
  beforeAll(() => {
    ({ t, app } = fixture);
  });

  const countPayments = async () =>
    (await t.db.query('SELECT count(*)::int AS n FROM payments WHERE app_id = $1', [app.id]))
      .rows[0].n as number;

  describe('JSON nested deeper than 32 levels', () => {
    it('is 400 VALIDATION_FAILED on field body; 32 levels are accepted and stored', async () => {
      const before = await countPayments();
      const deep = await t
        .http()
        .post('/api/v1/payments')
        .set(asApp(app.TEST))
        .send(bodyWithDepth(33, 1));
      expect(deep.status).toBe(400);
      expect(deep.body.meta.errorCode).toBe('VALIDATION_FAILED');
      expect(deep.body.meta.details).toEqual([
        { field: 'body', message: expect.stringContaining('32') },
      ]);
      const ok = await t
        .http()
        .post('/api/v1/payments')
        .set(asApp(app.TEST))
        .send(bodyWithDepth(32, 1));
      expect(ok.status).toBe(201);
      expect(await countPayments()).toBe(before + 1);
    });

    it('thousands of levels (which used to overflow the stack) are the same 400, also with an Idempotency-Key that stays free', async () => {
      const raw = `{"amountMinor":50000,"customerReference":"hostile","metadata":{"a":${'['.repeat(5000)}${']'.repeat(5000)}}}`;
      for (const key of [undefined, 'deep-1']) {
        const req = t
          .http()
          .post('/api/v1/payments')
          .set(asApp(app.TEST))
          .set('content-type', 'application/json');
        if (key) req.set('Idempotency-Key', key);
        const res = await req.send(raw);
        expect(res.status).toBe(400);
        expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
      }
      const stored = await t.db.query('SELECT 1 FROM idempotency_keys WHERE key = $1', ['deep-1']);
      expect(stored.rowCount).toBe(0);
      const invoice = await t
        .http()
        .post('/api/v1/invoices')
        .set(asApp(app.TEST))
        .set('content-type', 'application/json')
        .send(
          `{"customerReference":"hostile","lineItems":[{"description":"x","qty":1,"unitAmountMinor":1000}],"metadata":{"a":${'['.repeat(3000)}${']'.repeat(3000)}}}`,
        );
      expect(invoice.status).toBe(400);
    });

    it('a NUL character anywhere within the allowed depth is found', async () => {
      const res = await t
        .http()
        .post('/api/v1/payments')
        .set(asApp(app.TEST))
        .send(bodyWithDepth(32, 'a\u0000b'));
      expect(res.status).toBe(400);
      expect(res.body.meta.details[0].message).toContain('NUL');
    });
  });

  describe('a lone UTF-16 surrogate (not Unicode text)', () => {
    it('in payment or invoice metadata is 400 VALIDATION_FAILED naming the field, not a jsonb 500', async () => {
      const before = await countPayments();
      const payment = await t
        .http()
        .post('/api/v1/payments')
        .set(asApp(app.TEST))
        .send({ amountMinor: 50000, customerReference: 'hostile', metadata: { note: 'x\ud800' } });
      expect(payment.status).toBe(400);
      expect(payment.body.meta.details).toEqual([
        { field: 'metadata.note', message: expect.stringContaining('Unicode') },
      ]);
      const key = await t
        .http()
        .post('/api/v1/payments')
        .set(asApp(app.TEST))
        .send({ amountMinor: 50000, customerReference: 'hostile', metadata: { ['k\udc00']: 1 } });
      expect(key.status).toBe(400);
      const invoice = await t
        .http()
        .post('/api/v1/invoices')
        .set(asApp(app.TEST))
        .send({
          customerReference: 'hostile',
          lineItems: [{ description: 'x', qty: 1, unitAmountMinor: 1000 }],
          metadata: { note: '\udfff' },
        });
      expect(invoice.status).toBe(400);
      expect(await countPayments()).toBe(before);
    });

    it('in a text field is refused too, rather than silently stored as U+FFFD; paired surrogates (emoji) are fine', async () => {
      const lone = await t
        .http()
        .post('/api/v1/payments')
        .set(asApp(app.TEST))
        .send({ amountMinor: 50000, customerReference: 'hostile', description: 'Book \ud83d' });
      expect(lone.status).toBe(400);
      expect(lone.body.meta.details[0].field).toBe('description');
      const emoji = await t
        .http()
        .post('/api/v1/payments')
        .set(asApp(app.TEST))
        .send({
          amountMinor: 50000,
          customerReference: 'hostile',
          description: 'Book 📚',
          metadata: { note: 'ট্যাকা 😀' },
        });
      expect(emoji.status).toBe(201);
      const row = (
        await t.db.query('SELECT description, metadata FROM payments WHERE id = $1', [
          emoji.body.data.id,
        ])
      ).rows[0];
      expect(row).toEqual({ description: 'Book 📚', metadata: { note: 'ট্যাকা 😀' } });
    });
  });
});
