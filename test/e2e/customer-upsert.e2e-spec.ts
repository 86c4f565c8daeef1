import { appFixture } from '../support/app-fixture';
import { asApp, CreatedApp } from '../support/factories';
import { TestApp } from '../support/test-app';

/**
 * Every payment and invoice names its customer by reference (optionally with
 * details). A known customer whose details would not change is read, not
 * rewritten: a rewrite locks the row until the commit, and every request of
 * that customer would wait for the one before it.
 */
describe('customers named by payments and invoices', () => {
  let t: TestApp;
  let app: CreatedApp;
  let n = 0;
  const fixture = appFixture();
  beforeAll(() => {
    ({ t, app } = fixture);
  });

  const pay = (ref: string, details: Record<string, string> = {}) =>
    t
      .http()
      .post('/api/v1/payments')
      .set(asApp(app.TEST))
      .send({ amountMinor: 5000, customerReference: ref, ...details });
  const customer = async (ref: string) =>
    (
      await t.db.query(
        `SELECT id, name, email, updated_at FROM customers WHERE app_id = $1 AND mode = 'TEST' AND external_id = $2`,
        [app.id, ref],
      )
    ).rows;
  /**
   * Another session holding the lock a request rewriting the customer's row
   * takes (an UPDATE of non-key columns: FOR NO KEY UPDATE), until `release`.
   */
  const holdRow = async (ref: string) => {
    const holder = await t.db.connect();
    await holder.query('BEGIN');
    await holder.query(
      `SELECT 1 FROM customers WHERE app_id = $1 AND mode = 'TEST' AND external_id = $2 FOR NO KEY UPDATE`,
      [app.id, ref],
    );
    return async () => {
      await holder.query('COMMIT');
      holder.release();
    };
  };
  /** 'pending' if the request has not been answered within `ms`. */
  const within = async <T>(p: Promise<T>, ms: number): Promise<T | 'pending'> => {
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        p,
        new Promise<'pending'>((r) => (timer = setTimeout(() => r('pending'), ms))),
      ]);
    } finally {
      // A timer left running would keep Jest's worker alive after the file ends.
      clearTimeout(timer);
    }
  };

  it('a known customer with no new details is answered while another transaction holds their row', async () => {
    const ref = `cu-${++n}`;
    expect((await pay(ref, { customerName: 'Rahim' })).status).toBe(201);
    const [before] = await customer(ref);
    const release = await holdRow(ref);
    try {
      const plain = await within(pay(ref), 5000);
      const same = await within(pay(ref, { customerName: 'Rahim' }), 5000);
      expect(plain).not.toBe('pending');
      expect(same).not.toBe('pending');
      if (plain === 'pending' || same === 'pending') return;
      expect([plain.status, same.status]).toEqual([201, 201]);
      // Not rewritten: same row, same details, same updated_at.
      expect(await customer(ref)).toEqual([before]);
    } finally {
      await release();
    }
  });

  it('new details are written (waiting for the holder), keeping the details not given', async () => {
    const ref = `cu-${++n}`;
    expect((await pay(ref, { customerName: 'Karim' })).status).toBe(201);
    const [before] = await customer(ref);
    const release = await holdRow(ref);
    const answer = pay(ref, { customerEmail: 'karim@example.com' });
    let early: unknown;
    try {
      early = await within(answer, 500);
    } finally {
      await release();
    }
    expect(early).toBe('pending');
    expect((await answer).status).toBe(201);
    const [after] = await customer(ref);
    expect(after).toMatchObject({ id: before.id, name: 'Karim', email: 'karim@example.com' });
    expect(after.updated_at.getTime()).toBeGreaterThan(before.updated_at.getTime());
  });

  it('first requests for a new customer at once make one customer, which all their payments name', async () => {
    const ref = `cu-${++n}`;
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => pay(ref, i % 2 ? { customerName: 'Nadia' } : {})),
    );
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201, 201]);
    const rows = await customer(ref);
    expect(rows).toHaveLength(1);
    expect(rows[0].name).toBe('Nadia');
    const { rows: payments } = await t.db.query(
      `SELECT DISTINCT customer_id FROM payments WHERE app_id = $1 AND reference = ANY($2)`,
      [app.id, answers.map((a) => a.body.data.reference)],
    );
    expect(payments).toEqual([{ customer_id: rows[0].id }]);
  });
});
