import { deliveryHeaders } from '../../../src/webhooks/delivery/signer';
import { verifyWebhook, WebhookDeduper, WebhookVerificationError } from '../src';

/** The kit against the headers Joma's own signer produces. */
describe('verifyWebhook', () => {
  const secret = 'whsec_test_0123456789abcdef';
  const body = Buffer.from('{"id":"evt_1","type":"invoice.paid","data":{"id":7}}');
  const signed = (at: number, b = body) =>
    deliveryHeaders({
      secret,
      body: b,
      deliveryId: 42,
      eventType: 'invoice.paid',
      unixSeconds: at,
    });
  const now = 1_800_000_000;

  it('accepts a v2 signature within the tolerance and returns the event', () => {
    const v = verifyWebhook(body, signed(now - 10), secret, { nowSeconds: now });
    expect(v).toEqual({
      id: '42',
      type: 'invoice.paid',
      timestamp: now - 10,
      version: 'v2',
      event: { id: 'evt_1', type: 'invoice.paid', data: { id: 7 } },
    });
    // Lower-case header maps (Express) and Headers objects (fetch) both work.
    const lower = Object.fromEntries(
      Object.entries(signed(now)).map(([k, v]) => [k.toLowerCase(), v]),
    );
    expect(verifyWebhook(body, lower, secret, { nowSeconds: now }).version).toBe('v2');
    expect(verifyWebhook(body, new Headers(signed(now)), secret, { nowSeconds: now }).id).toBe(
      '42',
    );
  });

  it('refuses a changed body, a wrong secret, an old or future timestamp', () => {
    const h = signed(now);
    const refused = (fn: () => unknown, why: RegExp) => {
      expect(fn).toThrow(WebhookVerificationError);
      expect(fn).toThrow(why);
    };
    refused(
      () => verifyWebhook(Buffer.from(`${body} `), h, secret, { nowSeconds: now }),
      /mismatch/,
    );
    refused(() => verifyWebhook(body, h, 'whsec_other', { nowSeconds: now }), /mismatch/);
    refused(() => verifyWebhook(body, h, secret, { nowSeconds: now + 301 }), /tolerance/);
    refused(() => verifyWebhook(body, h, secret, { nowSeconds: now - 301 }), /tolerance/);
    expect(
      verifyWebhook(body, h, secret, { nowSeconds: now + 600, toleranceSeconds: 600 }).id,
    ).toBe('42');
  });

  it('takes a v1-only delivery only when allowed', () => {
    const { 'X-Webhook-Signature-V2': _v2, ...v1only } = signed(now);
    expect(() => verifyWebhook(body, v1only, secret)).toThrow(/no acceptable signature/);
    expect(verifyWebhook(body, v1only, secret, { allowV1: true }).version).toBe('v1');
    expect(() =>
      verifyWebhook(body, { ...v1only, 'X-Webhook-Signature': 'ab'.repeat(32) }, secret, {
        allowV1: true,
      }),
    ).toThrow(/v1 signature mismatch/);
  });
});

describe('WebhookDeduper', () => {
  it('processes an id once within its time to live', () => {
    const d = new WebhookDeduper(1000);
    expect(d.firstTime('42', 0)).toBe(true);
    expect(d.firstTime('42', 500)).toBe(false);
    expect(d.firstTime('43', 500)).toBe(true);
    expect(d.firstTime('42', 1500)).toBe(true);
  });
});
