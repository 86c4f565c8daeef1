import { InvoicePaymentsService } from '../../src/billing';
import { createValidationPipe } from '../../src/common/http/validation';
import { CustomersService } from '../../src/customers';
import { InvoicesService } from '../../src/invoices';
import { CreatePaymentDto, PaymentsService } from '../../src/payments';
import { serviceFixture } from '../support/service-fixture';

/**
 * Customers as services on a real database, with no HTTP in between: every
 * payment and invoice names its customer by reference (optionally with
 * details), one customer per reference in an app and mode whatever the
 * concurrency; details given later fill in the stored ones; a known customer
 * whose details would not change is read, not rewritten (a rewrite locks the
 * row until the commit, and every request of that customer would wait for
 * the one before it); phone numbers in any accepted form are stored as
 * +8801XXXXXXXXX. The HTTP contract stays in test/e2e: customer-phones
 * (400s naming customerPhone), customer-upsert (first requests raced through
 * the API) and payments (GET /customers/{externalId}/payments).
 */
describe('customers (medium tier: services on a real database)', () => {
  const f = serviceFixture({ appName: 'Customers' });
  let n = 0;
  let billing: InvoicePaymentsService;
  beforeAll(() => {
    billing = f.get(InvoicePaymentsService);
  });

  const pay = (ref: string, details: Partial<CreatePaymentDto> = {}) =>
    billing.createPayment(f.scope, { amountMinor: 5000, customerReference: ref, ...details });
  const customer = async (ref: string, mode = 'TEST') =>
    (
      await f.c.db.query(
        `SELECT id, name, email, phone, updated_at FROM customers WHERE app_id = $1 AND mode = $2 AND external_id = $3`,
        [f.scope.appId, mode, ref],
      )
    ).rows;
  const customerIdsOf = async (paymentIds: number[]) =>
    (
      await f.c.db.query(
        'SELECT DISTINCT customer_id::int AS id FROM payments WHERE id = ANY($1::bigint[])',
        [paymentIds],
      )
    ).rows.map((r) => r.id as number);
  /**
   * Another session holding the lock a request rewriting the customer's row
   * takes (an UPDATE of non-key columns: FOR NO KEY UPDATE), until `release`.
   */
  const holdRow = async (ref: string) => {
    const holder = await f.c.db.connect();
    await holder.query('BEGIN');
    await holder.query(
      `SELECT 1 FROM customers WHERE app_id = $1 AND mode = 'TEST' AND external_id = $2 FOR NO KEY UPDATE`,
      [f.scope.appId, ref],
    );
    return async () => {
      await holder.query('COMMIT');
      holder.release();
    };
  };
  /** 'pending' if the call has not finished within `ms`. */
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

  it('one customer per reference in an app and mode: later payments and invoices name it, details given later fill it in; its payments are listed by reference', async () => {
    const ref = `cu-${++n}`;
    const a = await pay(ref);
    const b = await pay(ref, { customerName: 'Bob' });
    const rows = await customer(ref);
    expect(rows).toEqual([expect.objectContaining({ name: 'Bob', email: null })]);
    expect(await customerIdsOf([a.id, b.id])).toEqual([rows[0].id]);
    const invoice = await f.get(InvoicesService).create(f.scope, {
      customerReference: ref,
      customerEmail: 'bob@example.com',
      lineItems: [{ description: 'x', qty: 1, unitAmountMinor: 100 }],
    });
    expect(invoice.customer.id).toBe(rows[0].id);
    expect(await customer(ref)).toEqual([
      expect.objectContaining({ id: rows[0].id, name: 'Bob', email: 'bob@example.com' }),
    ]);
    const payments = f.get(PaymentsService);
    const page = await payments.listForCustomer(f.scope, ref, { page: 0, size: 20 });
    expect(page.items.map((p) => p.id).sort((x, y) => x - y)).toEqual([a.id, b.id]);
    expect(page.pagination).toMatchObject({ totalElements: 2, page: 0 });
    const liveScope = { appId: f.scope.appId, mode: 'LIVE' as const };
    for (const [scope, reference] of [
      [liveScope, ref],
      [f.scope, 'nobody'],
    ] as const)
      await expect(payments.listForCustomer(scope, reference, {})).rejects.toMatchObject({
        code: 'RESOURCE_NOT_FOUND',
      });
    // Another mode is another partition: a customer of its own.
    const live = await f.get(InvoicesService).create(liveScope, {
      customerReference: ref,
      lineItems: [{ description: 'x', qty: 1, unitAmountMinor: 100 }],
    });
    expect(live.customer.id).not.toBe(rows[0].id);
    expect(await customer(ref, 'LIVE')).toEqual([expect.objectContaining({ name: null })]);
    expect((await f.get(CustomersService).findByExternalId(liveScope, ref))?.id).toBe(
      live.customer.id,
    );
    expect((await payments.listForCustomer(liveScope, ref, {})).items).toEqual([]);
  });

  it('a known customer with no new details is answered while another transaction holds their row, and is not rewritten', async () => {
    const ref = `cu-${++n}`;
    await pay(ref, { customerName: 'Rahim' });
    const [before] = await customer(ref);
    const release = await holdRow(ref);
    try {
      const plain = await within(pay(ref), 5000);
      const same = await within(pay(ref, { customerName: 'Rahim' }), 5000);
      expect(plain).not.toBe('pending');
      expect(same).not.toBe('pending');
      if (plain === 'pending' || same === 'pending') return;
      expect([plain.status, same.status]).toEqual(['PENDING', 'PENDING']);
      // Not rewritten: same row, same details, same updated_at.
      expect(await customer(ref)).toEqual([before]);
    } finally {
      await release();
    }
  });

  it('new details are written (waiting for the holder of the row), keeping the details not given', async () => {
    const ref = `cu-${++n}`;
    await pay(ref, { customerName: 'Karim' });
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
    expect((await answer).status).toBe('PENDING');
    const [after] = await customer(ref);
    expect(after).toMatchObject({ id: before.id, name: 'Karim', email: 'karim@example.com' });
    expect(after.updated_at.getTime()).toBeGreaterThan(before.updated_at.getTime());
  });

  it('first payments of a new customer at once make one customer, which all of them name', async () => {
    const ref = `cu-${++n}`;
    const made = await Promise.all(
      Array.from({ length: 6 }, (_, i) => pay(ref, i % 2 ? { customerName: 'Nadia' } : {})),
    );
    const rows = await customer(ref);
    expect(rows).toHaveLength(1);
    expect(rows[0].name).toBe('Nadia');
    expect(await customerIdsOf(made.map((p) => p.id))).toEqual([rows[0].id]);
  });

  describe('phone numbers', () => {
    // The body as the one ValidationPipe makes it (customerPhone normalised there), then the service.
    const payWithPhone = async (customerPhone: string, ref: string) =>
      billing.createPayment(
        f.scope,
        (await createValidationPipe().transform(
          { amountMinor: 5000, customerReference: ref, customerPhone },
          { type: 'body', metatype: CreatePaymentDto, data: '' },
        )) as CreatePaymentDto,
      );

    it.each([
      ['01711111111', '+8801711111111'],
      ['8801811111111', '+8801811111111'],
      ['+880 1911-111111', '+8801911111111'],
      ['+447911123456', '+447911123456'],
    ])('%s is stored as %s', async (phone, stored) => {
      const ref = `ph-${stored.slice(1)}`;
      expect((await payWithPhone(phone, ref)).status).toBe('PENDING');
      expect(await customer(ref)).toEqual([expect.objectContaining({ phone: stored })]);
    });
  });
});
