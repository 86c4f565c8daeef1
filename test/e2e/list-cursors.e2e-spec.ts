import { asApp, bearer, createApp, CreatedApp, superAdminToken } from '../support/factories';
import { createInvoice, createPayment } from '../support/payments';
import { createTestApp, TestApp } from '../support/test-app';

/** Keyset cursors on lists, and the cap on offset pages. */
describe('list cursors and the deep-page cap', () => {
  let t: TestApp;
  let app: CreatedApp;
  beforeAll(async () => {
    t = await createTestApp();
    app = await createApp(t);
    // Many rows share a millisecond: the id breaks ties.
    await Promise.all(
      Array.from({ length: 23 }, (_, i) =>
        createPayment(t, app.TEST, { amountMinor: 1000 + i, customerReference: `c${i}` }),
      ),
    );
    for (let i = 0; i < 12; i++) await createInvoice(t, app.TEST, { customerReference: `inv${i}` });
  });
  afterAll(() => t.close());

  const get = (path: string, creds = app.TEST) => t.http().get(path).set(asApp(creds));

  it.each(['/api/v1/payments', '/api/v1/invoices'])(
    '%s: walking nextCursor visits every row once, in the same order as offset pages, with exact totals',
    async (path) => {
      const byOffset: number[] = [];
      for (let page = 0; ; page++) {
        const res = await get(`${path}?size=5&page=${page}`);
        byOffset.push(...res.body.data.map((r: { id: number }) => r.id));
        if (res.body.data.length < 5) break;
      }
      const byCursor: number[] = [];
      let cursor: string | undefined;
      let total = -1;
      do {
        const res = await get(`${path}?size=5${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.status).toBe(200);
        if (total < 0) total = res.body.pagination.totalElements;
        expect(res.body.pagination.totalElements).toBe(total);
        byCursor.push(...res.body.data.map((r: { id: number }) => r.id));
        cursor = res.body.pagination.nextCursor;
      } while (cursor);
      expect(byCursor).toEqual(byOffset);
      expect(new Set(byCursor).size).toBe(total);
    },
  );

  it('refuses a bad cursor, a cursor with another order, and offsets past 10,000; another app cannot see rows through a cursor', async () => {
    // Tampered: well-formed, but a time no row can have (the database would overflow on it).
    const tampered = ['9999999999999999999.1', '-9223372036854775808.1', '1.99999999999999999'].map(
      (c) => Buffer.from(c).toString('base64url'),
    );
    for (const bad of ['not-a-cursor', 'bm9wZQ', 'x'.repeat(101), '%%%', ...tampered]) {
      const res = await get(`/api/v1/payments?cursor=${bad}`);
      expect(res.status).toBe(400);
      expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
    }
    const first = await get('/api/v1/payments?size=5');
    const cursor = first.body.pagination.nextCursor as string;
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const other = await get(`/api/v1/payments?sortBy=amountMinor&cursor=${cursor}`);
    expect(other.status).toBe(400);
    const deep = await get('/api/v1/payments?page=501&size=20');
    expect(deep.status).toBe(400);
    expect(deep.body.meta.details[0].message).toContain('cursor');
    expect((await get('/api/v1/payments?page=500&size=20')).status).toBe(200);
    const stranger = await createApp(t);
    const leak = await get(`/api/v1/payments?cursor=${cursor}`, stranger.TEST);
    expect(leak.status).toBe(200);
    expect(leak.body.data).toEqual([]);
    expect(leak.body.pagination.totalElements).toBe(0);
  });

  describe('a cursor is bound to the list and filters that gave it, with a keyed MAC (decisions 1 as amended)', () => {
    const refused = (res: { status: number; body: { meta: Record<string, any> } }) => {
      expect(res.status).toBe(400);
      expect(res.body.meta.errorCode).toBe('VALIDATION_FAILED');
      expect(res.body.meta.details[0].field).toBe('cursor');
    };
    /** The cursor of the first page of `path` (size 5). */
    const firstCursor = async (path: string, creds = app.TEST) => {
      const res = await get(`${path}${path.includes('?') ? '&' : '?'}size=5`, creds);
      expect(res.status).toBe(200);
      return res.body.pagination.nextCursor as string;
    };

    it('a cursor with one byte changed is refused, wherever the byte is, even when it still decodes', async () => {
      const cursor = await firstCursor('/api/v1/payments');
      expect((await get(`/api/v1/payments?size=5&cursor=${cursor}`)).status).toBe(200);
      const bytes = Buffer.from(cursor, 'base64url');
      // The position part still reads as "<time>.<id>" with its last digit changed: well-formed, but not signed.
      const text = bytes.toString('latin1');
      const dot = text.indexOf('.');
      let end = dot + 1;
      while (/\d/.test(text[end] ?? '')) end++;
      const moved = Buffer.from(bytes);
      moved[end - 1] = moved[end - 1] === 0x31 ? 0x32 : 0x31;
      refused(await get(`/api/v1/payments?cursor=${moved.toString('base64url')}`));
      for (const at of [0, dot, bytes.length - 1]) {
        const flipped = Buffer.from(bytes);
        flipped[at] ^= 0x01;
        refused(await get(`/api/v1/payments?cursor=${flipped.toString('base64url')}`));
      }
      // The old, unsigned form is refused too.
      refused(
        await get(
          `/api/v1/payments?cursor=${Buffer.from(text.slice(0, end)).toString('base64url')}`,
        ),
      );
    });

    it('a cursor presented to another list is refused', async () => {
      const payments = await firstCursor('/api/v1/payments');
      refused(await get(`/api/v1/invoices?cursor=${payments}`));
      const admin = bearer(await superAdminToken(t));
      const adminGet = (path: string) => t.http().get(path).set(admin);
      const scope = `applicationId=${app.id}&mode=TEST`;
      refused(await adminGet(`/api/v1/admin/payments?${scope}&cursor=${payments}`));
      const adminPayments = (await adminGet(`/api/v1/admin/payments?${scope}&size=5`)).body
        .pagination.nextCursor as string;
      expect(
        (await adminGet(`/api/v1/admin/payments?${scope}&cursor=${adminPayments}`)).status,
      ).toBe(200);
      refused(await adminGet(`/api/v1/admin/invoices?${scope}&cursor=${adminPayments}`));
      refused(await get(`/api/v1/payments?cursor=${adminPayments}`));
    });

    it('a cursor presented with other filters is refused, never paged with its own; the same filters in another order, or another size, are the same list', async () => {
      const pending = await firstCursor('/api/v1/payments?status=PENDING');
      refused(await get(`/api/v1/payments?cursor=${pending}`));
      refused(await get(`/api/v1/payments?status=FAILED&cursor=${pending}`));
      const unfiltered = await firstCursor('/api/v1/payments');
      refused(await get(`/api/v1/payments?status=PENDING&cursor=${unfiltered}`));

      const admin = bearer(await superAdminToken(t));
      const adminGet = (path: string) => t.http().get(path).set(admin);
      const filtered = `/api/v1/admin/payments?applicationId=${app.id}&mode=TEST&status=PENDING&gateway=sandbox`;
      const first = await adminGet(`${filtered}&size=5`);
      const cursor = first.body.pagination.nextCursor as string;
      expect(cursor).toBeTruthy();
      for (const other of [
        `applicationId=${app.id}&mode=TEST&status=PENDING`,
        `applicationId=${app.id}&mode=TEST&status=PENDING&gateway=bkash`,
        `applicationId=${app.id}&mode=LIVE&status=PENDING&gateway=sandbox`,
        `mode=TEST&status=PENDING&gateway=sandbox`,
      ])
        refused(await adminGet(`/api/v1/admin/payments?${other}&cursor=${cursor}`));
      const same = await adminGet(
        `/api/v1/admin/payments?gateway=sandbox&size=7&status=PENDING&mode=TEST&applicationId=${app.id}&cursor=${cursor}`,
      );
      expect(same.status).toBe(200);
      expect(same.body.data.length).toBeGreaterThan(0);
      const seen = first.body.data.map((p: { id: number }) => p.id);
      expect(same.body.data.some((p: { id: number }) => seen.includes(p.id))).toBe(false);
    });
  });

  it('totals are exact on every list, from the counters or counted, filtered or not, app and admin', async () => {
    const admin = bearer(await superAdminToken(t));
    const count = async (sql: string, params: unknown[]) =>
      Number((await t.db.query(sql, params)).rows[0].n);
    const scope = [app.id, 'TEST'];
    const checks: [string, Record<string, string>, string, unknown[]][] = [
      [
        '/api/v1/payments',
        asApp(app.TEST),
        'SELECT count(*) n FROM payments WHERE app_id=$1 AND mode=$2',
        scope,
      ],
      [
        '/api/v1/payments?status=PENDING',
        asApp(app.TEST),
        `SELECT count(*) n FROM payments WHERE app_id=$1 AND mode=$2 AND status='PENDING'`,
        scope,
      ],
      [
        '/api/v1/invoices',
        asApp(app.TEST),
        'SELECT count(*) n FROM invoices WHERE app_id=$1 AND mode=$2',
        scope,
      ],
      [
        '/api/v1/events',
        asApp(app.TEST),
        'SELECT count(*) n FROM events WHERE app_id=$1 AND mode=$2',
        scope,
      ],
      [
        '/api/v1/events?type=invoice.issued',
        asApp(app.TEST),
        `SELECT count(*) n FROM events WHERE app_id=$1 AND mode=$2 AND type='invoice.issued'`,
        scope,
      ],
      ['/api/v1/admin/payments', admin, 'SELECT count(*) n FROM payments', []],
      [
        `/api/v1/admin/payments?applicationId=${app.id}&mode=TEST`,
        admin,
        'SELECT count(*) n FROM payments WHERE app_id=$1 AND mode=$2',
        scope,
      ],
      ['/api/v1/admin/invoices', admin, 'SELECT count(*) n FROM invoices', []],
      [
        `/api/v1/admin/invoices?applicationId=${app.id}`,
        admin,
        'SELECT count(*) n FROM invoices WHERE app_id=$1',
        [app.id],
      ],
      ['/api/v1/admin/webhook-deliveries', admin, 'SELECT count(*) n FROM webhook_deliveries', []],
    ];
    for (const [path, headers, sql, params] of checks) {
      const res = await t.http().get(path).set(headers);
      expect([path, res.status]).toEqual([path, 200]);
      const n = await count(sql, params);
      expect([path, res.body.pagination.totalElements]).toEqual([path, n]);
    }
    expect(
      await count('SELECT count(*) n FROM payments WHERE app_id=$1', [app.id]),
    ).toBeGreaterThan(20);
  });

  it('sorts only by indexed fields: status and attempt times are not sort keys; across apps only createdAt and id', async () => {
    const admin = bearer(await superAdminToken(t));
    for (const path of [
      '/api/v1/payments?sortBy=status',
      '/api/v1/invoices?sortBy=status',
      '/api/v1/subscriptions?sort=status,asc',
    ]) {
      const res = await get(path);
      expect([path, res.status]).toEqual([path, 400]);
    }
    const nextAttempt = await t
      .http()
      .get('/api/v1/admin/webhook-deliveries?sortBy=nextAttemptAt')
      .set(admin);
    expect(nextAttempt.status).toBe(400);
    const across = await t.http().get('/api/v1/admin/invoices?sortBy=totalMinor').set(admin);
    expect(across.status).toBe(400);
    expect(across.body.meta.details[0]).toEqual({
      field: 'sortBy',
      message: expect.stringContaining('needs applicationId and mode'),
    });
    const within = await t
      .http()
      .get(`/api/v1/admin/invoices?sortBy=totalMinor&order=asc&applicationId=${app.id}&mode=TEST`)
      .set(admin);
    expect(within.status).toBe(200);
    const totals = within.body.data.map((i: { totalMinor: number }) => i.totalMinor);
    expect(totals).toEqual([...totals].sort((a, b) => a - b));
    expect(
      (await t.http().get('/api/v1/admin/invoices?sortBy=id&order=asc').set(admin)).status,
    ).toBe(200);
  });
});
