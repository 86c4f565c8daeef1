import { asApp, bearer, CreatedApp, superAdminToken } from './factories';
import type { TestApp } from './test-app';

export type TestMode = 'TEST' | 'LIVE';

/** A DRAFT product created by the super admin in the app's partition for `mode`. */
export async function createProduct(
  t: TestApp,
  app: CreatedApp,
  mode: TestMode = 'TEST',
  body: Record<string, unknown> = { name: 'Pro plan' },
): Promise<{ id: number; status: string; [k: string]: unknown }> {
  const res = await t
    .http()
    .post(`/api/v1/admin/products?applicationId=${app.id}&mode=${mode}`)
    .set(bearer(await superAdminToken(t)))
    .send(body);
  if (res.status !== 201)
    throw new Error(`create product failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

export const ONE_TIME = { type: 'ONE_TIME', amountMinor: 150000 };
export const MONTHLY = {
  type: 'RECURRING',
  amountMinor: 50000,
  interval: 'MONTH',
  intervalCount: 1,
};

/** A price created with the app's key of `mode` (the product must live there). */
export async function createPrice(
  t: TestApp,
  app: CreatedApp,
  productId: number,
  body: Record<string, unknown> = ONE_TIME,
  mode: TestMode = 'TEST',
): Promise<{ id: number; active: boolean; [k: string]: unknown }> {
  const res = await t
    .http()
    .post(`/api/v1/products/${productId}/prices`)
    .set(asApp(app[mode]))
    .send(body);
  if (res.status !== 201)
    throw new Error(`create price failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** A benefit, optionally activated, created with the app's key of `mode`. */
export async function createBenefit(
  t: TestApp,
  app: CreatedApp,
  lookupKey: string,
  opts: { mode?: TestMode; activate?: boolean } = {},
): Promise<{ id: number; active: boolean; [k: string]: unknown }> {
  const creds = asApp(app[opts.mode ?? 'TEST']);
  const res = await t
    .http()
    .post('/api/v1/benefits')
    .set(creds)
    .send({ lookupKey, name: lookupKey });
  if (res.status !== 201)
    throw new Error(`create benefit failed: ${res.status} ${JSON.stringify(res.body)}`);
  if (!opts.activate) return res.body.data;
  const act = await t.http().post(`/api/v1/benefits/${res.body.data.id}/activate`).set(creds);
  if (act.status !== 200)
    throw new Error(`activate benefit failed: ${act.status} ${JSON.stringify(act.body)}`);
  return act.body.data;
}

/** Attaches a benefit to a product as the super admin. */
export async function attachBenefit(t: TestApp, productId: number, benefitId: number) {
  return t
    .http()
    .post(`/api/v1/admin/products/${productId}/benefits`)
    .set(bearer(await superAdminToken(t)))
    .send({ benefitId });
}
