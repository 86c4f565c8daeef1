import { parse } from 'csv-parse/sync';
import type { Response } from 'supertest';

import {
  adminWith,
  asApp,
  bearer,
  createApp,
  CreatedApp,
  superAdminToken,
} from '../support/factories';
import { createInvoice, createPayment, settle } from '../support/payments';
import { createTestApp, TestApp } from '../support/test-app';

/**
 * CSV exports of the invoice, payment and refund lists (decisions section
 * 20): `Accept: text/csv` on the list routes (app and admin), every row the
 * filters select (not one page), streamed; UTF-8 with a byte order mark,
 * one header row, amounts as taka with two decimals and as minor units,
 * dates in Asia/Dhaka; at most 100,000 rows, refused before streaming.
 */
describe('CSV exports', () => {
  let t: TestApp;
  let root: string;

  const BOM = '\uFEFF';
  const CSV = { Accept: 'text/csv' };
  /** A GET whose body is kept as raw bytes, whatever its type. */
  const raw = (path: string, headers: Record<string, string>) =>
    t
      .http()
      .get(path)
      .set(headers)
      .buffer(true)
      .parse((res, done) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => done(null, Buffer.concat(chunks)));
      });
  const text = (res: Response) => (res.body as Buffer).toString('utf8');
  /** The records of a CSV answer (BOM and header checked, then left out). */
  function records(res: Response, header: string): string[][] {
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    const body = text(res);
    expect(body.startsWith(`${BOM}${header}\r\n`)).toBe(true);
    return parse(body.slice(1), { from_line: 2, relax_column_count: false }) as string[][];
  }

  const INVOICE_HEADER =
    'number,id,applicationId,mode,status,customerReference,customerName,customerEmail,customerPhone,totalTaka,totalMinor,amountPaidTaka,amountPaidMinor,amountDueTaka,amountDueMinor,currency,dueDate,issuedAt,createdAt,voidedAt,subscriptionId';
  const PAYMENT_HEADER =
    'id,reference,applicationId,mode,status,amountTaka,amountMinor,amountRefundedTaka,amountRefundedMinor,excessTaka,excessMinor,currency,gateway,gatewayTxnId,paymentMethod,paymentMethodAccount,riskLevel,invoiceId,customerReference,customerName,customerEmail,customerPhone,description,failureReason,createdAt,succeededAt';
  const REFUND_HEADER =
    'id,paymentId,invoiceId,applicationId,mode,status,amountTaka,amountMinor,currency,reason,approvalRequired,automatic,manual,gateway,gatewayRefundId,customerReference,failureReason,createdAt,updatedAt';

  beforeAll(async () => {
    t = await createTestApp();
    root = await superAdminToken(t);
  });
  afterAll(() => t.close());

  describe('byte for byte', () => {
    let shop: CreatedApp;
    let inv1: Record<string, any>;
    let inv2: Record<string, any>;

    beforeAll(async () => {
      shop = await createApp(t, 'CSV Shop');
      inv1 = await createInvoice(t, shop.TEST, {
        customerReference: 'csv-1',
        customerName: 'Rahim, "the" Reader\nDhaka',
        customerEmail: 'rahim@example.com',
        customerPhone: '01711111111',
        lineItems: [{ description: 'Books', qty: 1, unitAmountMinor: 123450 }],
      });
      // A reference may start with + - or @: spreadsheet formulae, all of them.
      inv2 = await createInvoice(t, shop.TEST, {
        customerReference: '-1+2',
        customerName: '=HYPERLINK("http://evil.example","x")',
        lineItems: [
          { description: 'Pens', qty: 1, unitAmountMinor: 100000 },
          { description: 'Ink', qty: 1, unitAmountMinor: 5 },
        ],
      });
      await t.db.query(
        `UPDATE customers SET email = '@SUM(A1:A9)', phone = '+8801811111111'
        WHERE app_id = $1 AND external_id = '-1+2'`,
        [shop.id],
      );
      // 18:30:00.123456Z is 00:30:00 the next day in Dhaka.
      await t.db.query(
        `UPDATE invoices SET created_at = '2025-01-15T18:30:00.123456Z', issued_at = '2025-01-15T18:30:00Z', due_date = '2025-01-23' WHERE id = $1`,
        [inv1.id],
      );
      await t.db.query(
        `UPDATE invoices SET created_at = '2025-01-16T17:59:59.999Z', issued_at = '2025-01-16T17:59:59Z', due_date = '2025-01-24' WHERE id = $1`,
        [inv2.id],
      );
    });

    it('invoices: BOM, header, escaped and neutralised fields, taka and minor units, Dhaka times, CRLF', async () => {
      const expected =
        `${BOM}${INVOICE_HEADER}\r\n` +
        `INV-000002,${inv2.id},${shop.id},TEST,ISSUED,'-1+2,"'=HYPERLINK(""http://evil.example"",""x"")",'@SUM(A1:A9),'+8801811111111,1000.05,100005,0.00,0,1000.05,100005,BDT,2025-01-24,2025-01-16T23:59:59+06:00,2025-01-16T23:59:59+06:00,,\r\n` +
        `INV-000001,${inv1.id},${shop.id},TEST,ISSUED,csv-1,"Rahim, ""the"" Reader\nDhaka",rahim@example.com,'+8801711111111,1234.50,123450,0.00,0,1234.50,123450,BDT,2025-01-23,2025-01-16T00:30:00+06:00,2025-01-16T00:30:00+06:00,,\r\n`;
      const res = await raw('/api/v1/invoices', { ...asApp(shop.TEST), ...CSV });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toBe('attachment; filename="invoices.csv"');
      expect(res.headers['cache-control']).toContain('no-store');
      expect((res.body as Buffer).subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
      expect(text(res)).toBe(expected);
      // The admin route answers the same file; so does an admin acting on the app.
      const admin = await raw(`/api/v1/admin/invoices?applicationId=${shop.id}&mode=TEST`, {
        ...bearer(root),
        ...CSV,
      });
      expect(text(admin)).toBe(expected);
      const acting = await raw('/api/v1/invoices', {
        ...bearer(root),
        'X-App-Id': String(shop.id),
        'X-Mode': 'TEST',
        ...CSV,
      });
      expect(text(acting)).toBe(expected);
      // Filters apply: one Dhaka day, a search.
      const day = await raw('/api/v1/invoices?from=2025-01-16&to=2025-01-16&q=csv-1', {
        ...asApp(shop.TEST),
        ...CSV,
      });
      expect(text(day)).toBe(`${BOM}${INVOICE_HEADER}\r\n${expected.split('\r\n')[2]}\r\n`);
    });

    it('payments and refunds: every column documented, amounts twice, Dhaka times', async () => {
      const payment = await createPayment(t, shop.TEST, {
        invoiceId: inv1.id,
        customerReference: 'csv-1',
        amountMinor: 123450,
        description: 'Books, Dhaka',
      });
      expect((await settle(t, shop.TEST, payment.id)).status).toBe(200);
      const refund = await t
        .http()
        .post(`/api/v1/payments/${payment.id}/refunds`)
        .set(asApp(shop.TEST))
        .send({ amountMinor: 23405, reason: '+ damaged copy' });
      expect(refund.status).toBe(201);
      await t.db.query(
        `UPDATE payments SET created_at = '2025-02-01T18:00:00Z', succeeded_at = '2025-02-01T18:05:07.9Z' WHERE id = $1`,
        [payment.id],
      );
      await t.db.query(
        `UPDATE refunds SET created_at = '2025-02-02T01:02:03Z', updated_at = '2025-02-02T01:02:04Z' WHERE id = $1`,
        [refund.body.data.id],
      );
      const captured = (await t.http().get(`/api/v1/payments/${payment.id}`).set(asApp(shop.TEST)))
        .body.data;

      const [p] = records(
        await raw('/api/v1/payments', { ...asApp(shop.TEST), ...CSV }),
        PAYMENT_HEADER,
      );
      const row = Object.fromEntries(PAYMENT_HEADER.split(',').map((h, i) => [h, p[i]]));
      expect(row).toEqual({
        id: String(payment.id),
        reference: payment.reference,
        applicationId: String(shop.id),
        mode: 'TEST',
        status: 'SUCCEEDED',
        amountTaka: '1234.50',
        amountMinor: '123450',
        amountRefundedTaka: '234.05',
        amountRefundedMinor: '23405',
        excessTaka: '0.00',
        excessMinor: '0',
        currency: 'BDT',
        gateway: 'sandbox',
        gatewayTxnId: captured.gatewayTxnId,
        paymentMethod: captured.paymentMethod ?? '',
        paymentMethodAccount: captured.paymentMethodAccount ?? '',
        riskLevel: 'NORMAL',
        invoiceId: String(inv1.id),
        customerReference: 'csv-1',
        customerName: 'Rahim, "the" Reader\nDhaka',
        customerEmail: 'rahim@example.com',
        customerPhone: "'+8801711111111",
        description: 'Books, Dhaka',
        failureReason: '',
        createdAt: '2025-02-02T00:00:00+06:00',
        succeededAt: '2025-02-02T00:05:07+06:00',
      });

      const [r] = records(
        await raw('/api/v1/refunds', { ...asApp(shop.TEST), ...CSV }),
        REFUND_HEADER,
      );
      expect(Object.fromEntries(REFUND_HEADER.split(',').map((h, i) => [h, r[i]]))).toEqual({
        id: String(refund.body.data.id),
        paymentId: String(payment.id),
        invoiceId: String(inv1.id),
        applicationId: String(shop.id),
        mode: 'TEST',
        status: 'SUCCEEDED',
        amountTaka: '234.05',
        amountMinor: '23405',
        currency: 'BDT',
        reason: "'+ damaged copy",
        approvalRequired: 'false',
        automatic: 'false',
        manual: 'false',
        gateway: 'sandbox',
        gatewayRefundId: refund.body.data.gatewayRefundId ?? '',
        customerReference: 'csv-1',
        failureReason: '',
        createdAt: '2025-02-02T07:02:03+06:00',
        updatedAt: '2025-02-02T07:02:04+06:00',
      });
      // The admin twins answer the same rows.
      const scope = `applicationId=${shop.id}&mode=TEST`;
      expect(
        records(
          await raw(`/api/v1/admin/payments?${scope}`, { ...bearer(root), ...CSV }),
          PAYMENT_HEADER,
        ),
      ).toEqual([p]);
      expect(
        records(
          await raw(`/api/v1/admin/refunds?${scope}`, { ...bearer(root), ...CSV }),
          REFUND_HEADER,
        ),
      ).toEqual([r]);
    });

    it('JSON unless CSV is asked for and not ranked below JSON', async () => {
      const key = asApp(shop.TEST);
      for (const accept of [
        'application/json',
        '*/*',
        'text/csv;q=0.5, application/json',
        'text/html',
      ])
        expect([
          accept,
          (await raw('/api/v1/invoices', { ...key, Accept: accept })).headers['content-type'],
        ]).toEqual([accept, 'application/json; charset=utf-8']);
      for (const accept of [
        'text/csv',
        'application/json;q=0.5, text/csv',
        'text/csv; charset=utf-8',
      ])
        expect([
          accept,
          (await raw('/api/v1/invoices', { ...key, Accept: accept })).headers['content-type'],
        ]).toEqual([accept, 'text/csv; charset=utf-8']);
    });

    it('partition: another app, or the other mode, exports a header and nothing else', async () => {
      const stranger = await createApp(t);
      for (const [list, header] of [
        ['invoices', INVOICE_HEADER],
        ['payments', PAYMENT_HEADER],
        ['refunds', REFUND_HEADER],
      ]) {
        for (const creds of [stranger.TEST, shop.LIVE])
          expect(text(await raw(`/api/v1/${list}`, { ...asApp(creds), ...CSV }))).toBe(
            `${BOM}${header}\r\n`,
          );
        // An operator's export of another app is only that app's.
        expect(
          text(
            await raw(`/api/v1/admin/${list}?applicationId=${stranger.id}`, {
              ...bearer(root),
              ...CSV,
            }),
          ),
        ).toBe(`${BOM}${header}\r\n`);
      }
    });

    it('errors stay JSON envelopes: bad filters, permissions, app scope', async () => {
      const bad = await raw('/api/v1/payments?from=2025-02-30', { ...asApp(shop.TEST), ...CSV });
      expect(bad.status).toBe(400);
      expect(bad.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(text(bad)).meta.details[0].field).toBe('from');
      const noPerm = await adminWith(t, ['apps:read']);
      const elsewhere = await createApp(t);
      const staff = await adminWith(t, ['invoices:read'], { appIds: [elsewhere.id] });
      for (const list of ['invoices', 'payments', 'refunds']) {
        const denied = await raw(`/api/v1/admin/${list}`, { ...bearer(noPerm.token), ...CSV });
        expect([list, denied.status, JSON.parse(text(denied)).meta.errorCode]).toEqual([
          list,
          403,
          'PERMISSION_DENIED',
        ]);
        const outside = await raw(`/api/v1/admin/${list}?applicationId=${shop.id}`, {
          ...bearer(staff.token),
          ...CSV,
        });
        expect([list, outside.status]).toEqual([list, 404]);
        const unauthenticated = await raw(`/api/v1/${list}`, CSV);
        expect([list, unauthenticated.status]).toEqual([list, 401]);
      }
    });
  });

  describe('every row, not one page: keyset batches', () => {
    it('exports 2,345 payments, newest first, each once, ties on the creation time broken by id', async () => {
      const bulk = await createApp(t, 'Bulk Shop');
      const seed = await createPayment(t, bulk.TEST, {
        customerReference: 'bulk',
        amountMinor: 1000,
      });
      // Seven rows share each creation time, so batch boundaries fall inside groups of equal times.
      await t.db.query(
        `INSERT INTO payments (app_id, mode, reference, status, amount_minor, gateway, customer_id, expires_at, created_at)
         SELECT app_id, mode, 'pay_bulk_' || g, 'PENDING', 1000 + g, 'sandbox', customer_id,
                now() + interval '1 hour', timestamptz '2025-06-01T00:00:00Z' + (g / 7) * interval '1 second'
           FROM payments, generate_series(1, 2344) g WHERE id = $1`,
        [seed.id],
      );
      const rows = records(
        await raw('/api/v1/payments', { ...asApp(bulk.TEST), ...CSV }),
        PAYMENT_HEADER,
      );
      expect(rows).toHaveLength(2345);
      const { rows: expected } = await t.db.query(
        `SELECT p.id::text AS id, p.amount_minor::text AS amount_minor FROM payments p
          WHERE p.app_id = $1 ORDER BY p.created_at DESC, p.id DESC`,
        [bulk.id],
      );
      expect(rows.map((r) => r[0])).toEqual(expected.map((e: { id: string }) => e.id));
      expect(rows.map((r) => r[6])).toEqual(
        expected.map((e: { amount_minor: string }) => e.amount_minor),
      );
      // Taka from minor units, exactly: 1000 + 2344 = 3344 minor units is 33.44.
      expect(rows.find((r) => r[6] === '3344')?.[5]).toBe('33.44');
      // The JSON list pages the same rows 100 at a time.
      const page = await t.http().get('/api/v1/payments?size=100').set(asApp(bulk.TEST));
      expect(page.body.data).toHaveLength(100);
      expect(page.body.pagination.totalElements).toBe(2345);
    });
  });

  describe('at most 100,000 rows', () => {
    it('refuses 100,001 before sending anything (400 naming the limit); 100,000 are exported', async () => {
      const huge = await createApp(t, 'Huge Shop');
      const seed = await createPayment(t, huge.TEST, {
        customerReference: 'huge',
        amountMinor: 1000,
      });
      await t.db.query(
        `INSERT INTO payments (app_id, mode, reference, status, amount_minor, gateway, customer_id, expires_at, created_at)
         SELECT app_id, mode, 'pay_huge_' || g, 'PENDING', 1000, 'sandbox', customer_id,
                now() + interval '1 hour', timestamptz '2025-07-01T00:00:00Z' + g * interval '1 millisecond'
           FROM payments, generate_series(1, 100000) g WHERE id = $1`,
        [seed.id],
      );
      const key = { ...asApp(huge.TEST), ...CSV };
      const refused = await raw('/api/v1/payments', key);
      expect(refused.status).toBe(400);
      expect(refused.headers['content-type']).toBe('application/json; charset=utf-8');
      const body = JSON.parse(text(refused));
      expect(body.meta.errorCode).toBe('VALIDATION_FAILED');
      expect(body.meta.details[0].message).toContain('100000');
      const admin = await raw(`/api/v1/admin/payments?applicationId=${huge.id}`, {
        ...bearer(root),
        ...CSV,
      });
      expect(admin.status).toBe(400);
      // Narrowed to the 100,000 inserted rows (the seed was created today): exported, every one.
      const narrowed = await raw('/api/v1/payments?to=2025-07-31', key);
      const lines = text(narrowed).split('\r\n');
      expect(narrowed.status).toBe(200);
      expect(lines).toHaveLength(100_000 + 2); // header, rows, and the empty string after the last CRLF
      expect(lines[lines.length - 1]).toBe('');
    }, 120_000);
  });
});
