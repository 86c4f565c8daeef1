import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { AppConfig } from '../../config/app-config';
import { SslcommerzGateway } from './sslcommerz.gateway';

const PASSWORD = 'joma_test@ssl';
const md5 = (s: string) => createHash('md5').update(s, 'utf8').digest('hex');

/**
 * Signs a form as its sender would: the fields verify_key names plus
 * store_passwd=md5(password), sorted, joined, MD5'd. A verify_key naming
 * store_passwd puts the form's own value there: a forger's signature.
 */
function sign(form: Record<string, string>): Record<string, string> {
  const signed: Record<string, string> = { store_passwd: md5(PASSWORD) };
  for (const k of form.verify_key.split(',')) signed[k] = form[k] ?? '';
  const data = Object.keys(signed)
    .sort()
    .map((k) => `${k}=${signed[k]}`)
    .join('&');
  return { ...form, verify_sign: md5(data) };
}

/** Issue 56: what an SSLCommerz verify_key may name. */
describe('SSLCommerz callback signature', () => {
  const gateway = new SslcommerzGateway({ gatewayTimeoutMs: 1000 } as AppConfig);
  const holds = (form: Record<string, string>) => gateway['signatureHolds'](form, PASSWORD);
  const dir = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'gateways', 'sslcommerz');
  const published = readdirSync(dir)
    .filter((f) => /^ipn\..+\.json$/.test(f))
    .map((f) => {
      const parsed = JSON.parse(readFileSync(join(dir, f), 'utf8')) as {
        request: { form: Record<string, string> };
      };
      return [f, parsed.request.form] as const;
    });
  const valid = published.find(([f]) => f === 'ipn.valid.json')![1];

  it('there are published IPNs, with and without val_id', () => {
    expect(published.length).toBeGreaterThanOrEqual(5);
    expect(published.some(([, form]) => !('val_id' in form))).toBe(true);
  });

  it.each(published)('%s, signed over its own verify_key, verifies', (_, form) => {
    expect(holds(sign(form))).toBe(true);
    expect(holds({ ...sign(form), amount: '1.00' })).toBe(false);
  });

  it('refuses a verify_key naming store_passwd: the sender would choose the password field', () => {
    const forged = sign({
      ...valid,
      verify_key: `${valid.verify_key},store_passwd`,
      store_passwd: 'chosen-by-the-forger',
    });
    expect(holds(forged)).toBe(false);
  });

  it('refuses a verify_key that leaves out a field Joma relies on', () => {
    const without = (name: string) =>
      sign({
        ...valid,
        verify_key: valid.verify_key
          .split(',')
          .filter((k) => k !== name)
          .join(','),
      });
    for (const name of ['tran_id', 'val_id', 'amount', 'currency', 'status'])
      expect([name, holds(without(name))]).toEqual([name, false]);
    expect(holds(without('card_brand'))).toBe(true);
    // No val_id in the callback: none to cover (the cancelled and failed IPNs).
    const { val_id: _, ...noVal } = valid;
    expect(
      holds(
        sign({
          ...noVal,
          verify_key: noVal.verify_key
            .split(',')
            .filter((k) => k !== 'val_id')
            .join(','),
        }),
      ),
    ).toBe(true);
  });
});
