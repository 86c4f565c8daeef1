import {
  adminWith,
  asApp,
  bearer,
  createApp,
  CreatedApp,
  Credentials,
  superAdminToken,
} from '../support/factories';
import { createInvoice, createPayment, settle } from '../support/payments';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * Finding records (decisions section 20): `from`/`to` (Asia/Dhaka days,
 * both inclusive, on the creation time) and `q` (invoice number, customer
 * reference, email or phone, payment id or reference, gateway transaction
 * id) on the invoice, payment and refund lists, app routes and admin routes
 * alike; the mode only from the key, other apps never seen.
 */
describe('list search and date ranges', () => {
  let t: TestApp;
  let shop: CreatedApp;
  let other: CreatedApp;
  let root: string;

  const LISTS = ['invoices', 'payments', 'refunds'] as const;
  type List = (typeof LISTS)[number];

  const get = (path: string, headers: Record<string, string>) => t.http().get(path).set(headers);
  const ids = (res: { body: { data: { id: number }[] } }) => res.body.data.map((r) => r.id);
  /** The ids a list answers (all on one page), newest first. */
  async function found(path: string, headers: Record<string, string>): Promise<number[]> {
    const res = await get(path, headers);
    expect([path, res.status, res.body.meta?.details]).toEqual([path, 200, undefined]);
    expect(res.body.pagination.totalElements).toBe(res.body.data.length);
    return ids(res);
  }
  const enc = encodeURIComponent;

  /** A captured payment (sandbox), optionally on an invoice, with a refund of 1,000. */
  async function paidWithRefund(
    creds: Credentials,
    body: Record<string, unknown>,
  ): Promise<{ payment: Record<string, any>; refund: Record<string, any> }> {
    const payment = await createPayment(t, creds, body);
    expect((await settle(t, creds, payment.id)).status).toBe(200);
    const refund = await t
      .http()
      .post(`/api/v1/payments/${payment.id}/refunds`)
      .set(asApp(creds))
      .send({ amountMinor: 1000 });
    expect(refund.status).toBe(201);
    const settled = await t.http().get(`/api/v1/payments/${payment.id}`).set(asApp(creds));
    return { payment: settled.body.data, refund: refund.body.data };
  }

  beforeAll(async () => {
    t = await createTestApp();
    root = await superAdminToken(t);
    shop = await createApp(t, 'Search Shop');
    other = await createApp(t, 'Other Shop');
  });
  afterAll(() => t.close());

  describe('q: by invoice number, customer, payment id or reference, and gateway transaction id', () => {
    let inv1: Record<string, any>;
    let inv2: Record<string, any>;
    let pay1: Record<string, any>; // on inv1, sandbox
    let pay2: Record<string, any>; // karim, bKash
    let pay3: Record<string, any>; // rahim, SSLCommerz
    let ref1: Record<string, any>;
    let ref2: Record<string, any>;
    let ref3: Record<string, any>;
    let theirs: Record<string, any>;
    const BKASH_TXN = 'AJ5KX2MB8Q';
    const SSL_TXN = '2412021830451Kq8XbZ3wPn';
    const rahim = {
      customerReference: 'c-rahim',
      customerName: 'Rahim Uddin',
      customerEmail: 'Rahim@Example.com',
      customerPhone: '01711111111',
    };
    const karim = {
      customerReference: 'c-karim',
      customerName: 'Karim',
      customerEmail: 'karim@example.com',
      customerPhone: '+8801811111111',
    };

    beforeAll(async () => {
      inv1 = await createInvoice(t, shop.TEST, {
        ...rahim,
        lineItems: [{ description: 'Books', qty: 1, unitAmountMinor: 100000 }],
      });
      inv2 = await createInvoice(t, shop.TEST, karim);
      ({ payment: pay1, refund: ref1 } = await paidWithRefund(shop.TEST, {
        invoiceId: inv1.id,
        customerReference: 'c-rahim',
        amountMinor: 100000,
      }));
      ({ payment: pay2, refund: ref2 } = await paidWithRefund(shop.TEST, {
        ...karim,
        amountMinor: 20000,
      }));
      ({ payment: pay3, refund: ref3 } = await paidWithRefund(shop.TEST, {
        ...rahim,
        amountMinor: 30000,
      }));
      // The transaction ids real gateways give: bKash's trxID, SSLCommerz's bank_tran_id.
      await t.db.query(`UPDATE payments SET gateway = 'bkash', gateway_txn_id = $2 WHERE id = $1`, [
        pay2.id,
        BKASH_TXN,
      ]);
      await t.db.query(
        `UPDATE payments SET gateway = 'sslcommerz', gateway_txn_id = $2 WHERE id = $1`,
        [pay3.id, SSL_TXN],
      );
      // Another app with a customer of the same reference, and the same bKash id.
      theirs = (
        await paidWithRefund(other.TEST, { customerReference: 'c-rahim', amountMinor: 15000 })
      ).payment;
      await t.db.query(`UPDATE payments SET gateway_txn_id = $2 WHERE id = $1`, [
        theirs.id,
        BKASH_TXN,
      ]);
    });

    it('the sandbox capture has a transaction id of its own form', () => {
      expect(pay1.gatewayTxnId).toMatch(/^SBXTXN[A-Z0-9_-]+$/);
    });

    it('invoices: number in any case, customer reference, email, phone in any form, and the payments made on them', async () => {
      const app = asApp(shop.TEST);
      const q = (term: string) => found(`/api/v1/invoices?q=${enc(term)}`, app);
      expect(await q(inv1.number.toLowerCase())).toEqual([inv1.id]);
      expect(await q(inv2.number)).toEqual([inv2.id]);
      expect(await q('c-karim')).toEqual([inv2.id]);
      expect(await q('RAHIM@example.COM')).toEqual([inv1.id]);
      expect(await q('01711111111')).toEqual([inv1.id]);
      expect(await q('+880 1711-111111')).toEqual([inv1.id]);
      expect(await q(String(pay1.id))).toEqual([inv1.id]);
      expect(await q(pay1.reference)).toEqual([inv1.id]);
      expect(await q(pay1.gatewayTxnId)).toEqual([inv1.id]);
      expect(await q(pay1.gatewayTxnId.toLowerCase())).toEqual([inv1.id]);
      expect(await q('  c-karim  ')).toEqual([inv2.id]);
      expect(await q('nobody')).toEqual([]);
      // Partial numbers and references are not matches: the lists find, they do not scan.
      expect(await q('INV-00000')).toEqual([]);
      // q combines with the other filters.
      expect(await found(`/api/v1/invoices?q=c-rahim&status=PAID`, app)).toEqual([inv1.id]);
      expect(await found(`/api/v1/invoices?q=c-rahim&status=ISSUED`, app)).toEqual([]);
    });

    it('payments: id, reference, and the transaction id of each gateway', async () => {
      const app = asApp(shop.TEST);
      const q = (term: string) => found(`/api/v1/payments?q=${enc(term)}`, app);
      expect(await q(String(pay2.id))).toEqual([pay2.id]);
      expect(await q(pay3.reference)).toEqual([pay3.id]);
      expect(await q(pay1.gatewayTxnId)).toEqual([pay1.id]);
      expect(await q(BKASH_TXN)).toEqual([pay2.id]);
      // bKash ids are upper case: one typed in lower case still finds it.
      expect(await q(BKASH_TXN.toLowerCase())).toEqual([pay2.id]);
      expect(await q(SSL_TXN)).toEqual([pay3.id]);
      expect(await q('c-rahim')).toEqual([pay3.id, pay1.id]);
      expect(await q('KARIM@EXAMPLE.COM')).toEqual([pay2.id]);
      expect(await q('8801711111111')).toEqual([pay3.id, pay1.id]);
      expect(await found(`/api/v1/payments?q=c-rahim&status=FAILED`, app)).toEqual([]);
    });

    it('refunds (a new app route, and the admin one): by the payment, its transaction id, the invoice number, the customer', async () => {
      const app = asApp(shop.TEST);
      const q = (term: string) => found(`/api/v1/refunds?q=${enc(term)}`, app);
      expect(await found('/api/v1/refunds', app)).toEqual([ref3.id, ref2.id, ref1.id]);
      expect(await q(String(pay1.id))).toEqual([ref1.id]);
      expect(await q(pay2.reference)).toEqual([ref2.id]);
      expect(await q(BKASH_TXN)).toEqual([ref2.id]);
      expect(await q(SSL_TXN)).toEqual([ref3.id]);
      expect(await q(inv1.number)).toEqual([ref1.id]);
      expect(await q('c-rahim')).toEqual([ref3.id, ref1.id]);
      expect(await q('karim@example.com')).toEqual([ref2.id]);
      expect(await q('nothing-at-all')).toEqual([]);
      expect((await get('/api/v1/refunds?status=SUCCEEDED', app)).body.data).toHaveLength(3);
    });

    it('admin routes search the same way, in one app and mode or across apps', async () => {
      const admin = bearer(root);
      const scope = `applicationId=${shop.id}&mode=TEST`;
      for (const [list, term, want] of [
        ['invoices', inv1.number, [inv1.id]],
        ['invoices', 'rahim@example.com', [inv1.id]],
        ['payments', BKASH_TXN, [pay2.id]],
        ['payments', SSL_TXN, [pay3.id]],
        ['refunds', String(pay1.id), [ref1.id]],
        ['refunds', inv1.number, [ref1.id]],
      ] as [List, string, number[]][])
        expect(await found(`/api/v1/admin/${list}?${scope}&q=${enc(term)}`, admin)).toEqual(want);
      // Across apps: the other app's payment with the same bKash id shows too.
      expect(await found(`/api/v1/admin/payments?q=${BKASH_TXN}`, admin)).toEqual([
        theirs.id,
        pay2.id,
      ]);
      expect(
        await found(`/api/v1/admin/payments?applicationId=${other.id}&q=${BKASH_TXN}`, admin),
      ).toEqual([theirs.id]);
    });

    it('partition: another app, or the other mode of the same key pair, finds nothing of it', async () => {
      for (const list of LISTS) {
        for (const term of ['c-karim', BKASH_TXN, SSL_TXN, String(pay1.id), inv1.number])
          expect(await found(`/api/v1/${list}?q=${enc(term)}`, asApp(shop.LIVE))).toEqual([]);
        for (const term of [SSL_TXN, String(pay1.id), inv1.number, pay1.reference])
          expect(await found(`/api/v1/${list}?q=${enc(term)}`, asApp(other.TEST))).toEqual([]);
      }
      // The other app's own c-rahim is its own.
      expect(await found('/api/v1/payments?q=c-rahim', asApp(other.TEST))).toEqual([theirs.id]);
      // The mode comes only from the key: a query naming one is refused.
      for (const list of LISTS) {
        const res = await get(`/api/v1/${list}?mode=LIVE`, asApp(shop.TEST));
        expect(res.status).toBe(400);
        expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
      }
      const res = await get(`/api/v1/refunds?applicationId=${other.id}`, asApp(shop.TEST));
      expect(res.status).toBe(400);
    });

    it('admins acting on an app through the app routes need invoices:read; admin routes need it and the app in scope', async () => {
      const reader = await adminWith(t, ['invoices:read']);
      const acting = (token: string, appId: number) => ({
        ...bearer(token),
        'X-App-Id': String(appId),
        'X-Mode': 'TEST',
      });
      expect(await found(`/api/v1/refunds?q=${BKASH_TXN}`, acting(reader.token, shop.id))).toEqual([
        ref2.id,
      ]);
      expect(await found(`/api/v1/payments?q=c-rahim`, acting(reader.token, other.id))).toEqual([
        theirs.id,
      ]);
      const outsider = await adminWith(t, ['webhooks:operate']);
      for (const list of LISTS) {
        const denied = await get(`/api/v1/${list}?q=c-rahim`, acting(outsider.token, shop.id));
        expect([list, denied.status, denied.body.meta.errorCode]).toEqual([
          list,
          403,
          'PERMISSION_DENIED',
        ]);
        const adminDenied = await get(`/api/v1/admin/${list}?q=c-rahim`, bearer(outsider.token));
        expect([list, adminDenied.status]).toEqual([list, 403]);
      }
      // A merchant's own staff (app-scoped) search only their app, however they ask.
      const staff = await adminWith(t, ['invoices:read'], { appIds: [other.id] });
      expect(await found(`/api/v1/admin/payments?q=${BKASH_TXN}`, bearer(staff.token))).toEqual([
        theirs.id,
      ]);
      for (const list of LISTS) {
        const res = await get(
          `/api/v1/admin/${list}?applicationId=${shop.id}&q=c-rahim`,
          bearer(staff.token),
        );
        expect([list, res.status]).toEqual([list, 404]);
        const appRoute = await get(`/api/v1/${list}?q=c-rahim`, acting(staff.token, shop.id));
        expect([list, appRoute.status]).toEqual([list, 404]);
      }
    });

    it('a cursor is bound to q: the same search pages on, another search is refused', async () => {
      const app = asApp(shop.TEST);
      const first = await get('/api/v1/payments?q=c-rahim&size=1', app);
      expect(first.body.pagination.totalElements).toBe(2);
      const cursor = first.body.pagination.nextCursor as string;
      expect(cursor).toBeTruthy();
      const next = await get(`/api/v1/payments?q=c-rahim&size=1&cursor=${cursor}`, app);
      expect(ids(next)).toEqual([pay1.id]);
      const other = await get(`/api/v1/payments?q=c-karim&size=1&cursor=${cursor}`, app);
      expect(other.status).toBe(400);
      expect(other.body.meta.details[0].field).toBe('cursor');
    });

    it('q is at most 200 characters; an empty q searches nothing (the whole list)', async () => {
      const app = asApp(shop.TEST);
      const long = await get(`/api/v1/invoices?q=${'x'.repeat(201)}`, app);
      expect(long.status).toBe(400);
      expect(long.body.meta.details[0].field).toBe('q');
      expect(await found('/api/v1/invoices?q=', app)).toEqual([inv2.id, inv1.id]);
      expect(await found(`/api/v1/invoices?q=${enc('   ')}`, app)).toEqual([inv2.id, inv1.id]);
    });
  });

  describe('from/to: Asia/Dhaka days, both inclusive, on the creation time', () => {
    let app: CreatedApp;
    /** Per list, the record created at each instant (oldest first). */
    const rows: Record<List, number[]> = { invoices: [], payments: [], refunds: [] };
    const AT = [
      '2025-03-10T23:59:59.999+06:00', // the last moment of 10 March in Dhaka
      '2025-03-11T00:00:00+06:00', // 18:00 UTC on 10 March: already 11 March in Dhaka
      '2025-03-11T23:59:59.999999+06:00',
      '2025-03-12T00:00:00+06:00',
    ];

    beforeAll(async () => {
      app = await createApp(t, 'Dated Shop');
      for (const [i, at] of AT.entries()) {
        const invoice = await createInvoice(t, app.TEST, { customerReference: `d-${i}` });
        const { payment, refund } = await paidWithRefund(app.TEST, {
          invoiceId: invoice.id,
          customerReference: `d-${i}`,
          amountMinor: 100000,
        });
        for (const [table, id] of [
          ['invoices', invoice.id],
          ['payments', payment.id],
          ['refunds', refund.id],
        ] as [List, number][]) {
          await t.db.query(`UPDATE ${table} SET created_at = $2 WHERE id = $1`, [id, at]);
          rows[table].push(id);
        }
      }
    });

    /** The rows created at these instants (by index into AT), newest first. */
    const at = (list: List, ...i: number[]) => i.map((n) => rows[list][n]).reverse();

    it.each(LISTS)(
      '%s: the day boundary is Dhaka midnight (18:00 UTC), app and admin routes',
      async (list) => {
        const key = asApp(app.TEST);
        const admin = bearer(root);
        const scope = `applicationId=${app.id}&mode=TEST`;
        for (const [range, want] of [
          ['from=2025-03-11&to=2025-03-11', [1, 2]],
          ['to=2025-03-10', [0]],
          ['from=2025-03-10&to=2025-03-10', [0]],
          ['from=2025-03-12', [3]],
          ['from=2025-03-11', [1, 2, 3]],
          ['to=2025-03-11', [0, 1, 2]],
          ['from=2025-03-13', []],
        ] as [string, number[]][]) {
          expect([range, await found(`/api/v1/${list}?${range}`, key)]).toEqual([
            range,
            at(list, ...want),
          ]);
          expect([range, await found(`/api/v1/admin/${list}?${scope}&${range}`, admin)]).toEqual([
            range,
            at(list, ...want),
          ]);
        }
        // Operators may name instants too (`to` exclusive).
        const instants = `from=${enc('2025-03-10T18:00:00Z')}&to=${enc('2025-03-11T18:00:00Z')}`;
        expect(await found(`/api/v1/admin/${list}?${scope}&${instants}`, admin)).toEqual(
          at(list, 1, 2),
        );
        // A date range combines with q.
        expect(await found(`/api/v1/${list}?from=2025-03-11&to=2025-03-11&q=d-1`, key)).toEqual(
          at(list, 1),
        );
        expect(await found(`/api/v1/${list}?from=2025-03-12&q=d-1`, key)).toEqual([]);
      },
    );

    it.each(LISTS)(
      '%s: bad dates and from after to are 400 VALIDATION_FAILED naming the field',
      async (list) => {
        const key = asApp(app.TEST);
        for (const [query, field] of [
          ['from=2025-02-30', 'from'],
          ['to=2025-13-01', 'to'],
          ['to=20250101', 'to'],
          ['from=11-03-2025', 'from'],
          ['from=today', 'from'],
          // App routes take days only.
          [`from=${enc('2025-03-11T00:00:00Z')}`, 'from'],
          ['from=2025-03-12&to=2025-03-11', 'from'],
        ]) {
          const res = await get(`/api/v1/${list}?${query}`, key);
          expect([query, res.status, res.body.meta.errorCode]).toEqual([
            query,
            400,
            'VALIDATION_FAILED',
          ]);
          expect(res.body.meta.details.map((d: { field: string }) => d.field)).toContain(field);
        }
        const admin = bearer(root);
        for (const query of [
          'from=2025-03-12&to=2025-03-11',
          `from=${enc('2025-03-12T00:00:00Z')}&to=${enc('2025-03-11T00:00:00Z')}`,
          'to=2025-02-29',
          `to=${enc('2025-03-11T10:00')}`,
        ]) {
          const res = await get(`/api/v1/admin/${list}?${query}`, admin);
          expect([query, res.status]).toEqual([query, 400]);
        }
        // The same day for both is one day, not an error.
        expect((await get(`/api/v1/${list}?from=2025-03-11&to=2025-03-11`, key)).status).toBe(200);
      },
    );
  });
});
