import type { Response } from 'supertest';

import type { BkashFake } from './bkash-fake';
import { bearer, superAdminToken } from './factories';
import type { TestApp } from './test-app';

/** An operator sets an app's credentials for a real gateway (PATCH /admin/apps/{id}/gateways/{gateway}). */
export async function setGateway(
  t: TestApp,
  appId: number,
  gateway: 'sslcommerz' | 'bkash' | 'nagad',
  mode: 'TEST' | 'LIVE',
  credentials: Record<string, string>,
  makeDefault = false,
): Promise<Response> {
  return t
    .http()
    .patch(`/api/v1/admin/apps/${appId}/gateways/${gateway}?mode=${mode}`)
    .set(bearer(await superAdminToken(t)))
    .send(makeDefault ? { credentials, default: true } : { credentials });
}

/** bKash's paymentID in a checkout URL the bKash simulator gave. */
export const bkashPaymentId = (checkoutUrl: string): string =>
  new URL(checkoutUrl).searchParams.get('paymentID')!;

/** The customer's browser back from bKash with `status` (GET on Joma's return URL). */
export function bkashReturn(
  t: TestApp,
  fake: BkashFake,
  paymentID: string,
  status: 'success' | 'failure' | 'cancel',
) {
  const back = new URL(fake.returnUrl(paymentID, status));
  return t.http().get(back.pathname + back.search);
}

/** The customer pays on bKash's page and comes back with `success` (Joma executes). */
export async function bkashPays(t: TestApp, fake: BkashFake, checkoutUrl: string): Promise<string> {
  const paymentID = bkashPaymentId(checkoutUrl);
  fake.customerPays(paymentID);
  await bkashReturn(t, fake, paymentID, 'success');
  return paymentID;
}
