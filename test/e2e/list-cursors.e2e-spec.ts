import { asApp, createApp, CreatedApp } from '../support/factories';
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
    for (const bad of ['not-a-cursor', 'bm9wZQ', 'x'.repeat(101), '%%%']) {
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
});
