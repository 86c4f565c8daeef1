import { asApp, Credentials } from './factories';
import type { TestApp } from './test-app';

/** Creates a payment and returns its data (throws on a non-201). */
export async function createPayment(
  t: TestApp,
  creds: Credentials,
  body: Record<string, unknown> = {},
): Promise<Record<string, any>> {
  const res = await t
    .http()
    .post('/api/v1/payments')
    .set(asApp(creds))
    .send({ amountMinor: 50000, customerReference: 'cust-1', ...body });
  if (res.status !== 201)
    throw new Error(`create payment failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

export async function createInvoice(
  t: TestApp,
  creds: Credentials,
  body: Record<string, unknown> = {},
): Promise<Record<string, any>> {
  const res = await t
    .http()
    .post('/api/v1/invoices')
    .set(asApp(creds))
    .send({
      customerReference: 'cust-1',
      lineItems: [{ description: 'Item', qty: 1, unitAmountMinor: 100000 }],
      ...body,
    });
  if (res.status !== 201)
    throw new Error(`create invoice failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

export function settle(
  t: TestApp,
  creds: Credentials,
  paymentId: number,
  outcome: 'succeeded' | 'failed' | 'cancelled' = 'succeeded',
) {
  return t
    .http()
    .post(`/api/v1/test-helpers/payments/${paymentId}/settle`)
    .set(asApp(creds))
    .send({ outcome });
}

export function expire(t: TestApp, creds: Credentials, paymentId: number) {
  return t
    .http()
    .post(`/api/v1/test-helpers/payments/${paymentId}/expire`)
    .set(asApp(creds))
    .send();
}

/** Events of one app, oldest first. */
export async function eventsOf(
  t: TestApp,
  appId: number,
  typePrefix = '',
): Promise<{ id: number; type: string; data: any; mode: string }[]> {
  const res = await t.db.query(
    'SELECT id, type, data, mode FROM events WHERE app_id = $1 AND type LIKE $2 ORDER BY id',
    [appId, `${typePrefix}%`],
  );
  return res.rows;
}
