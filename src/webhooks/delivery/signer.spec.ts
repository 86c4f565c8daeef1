import { deliveryHeaders, signV1, signV2 } from './signer';

// Expected values computed independently with `openssl dgst -sha256 -hmac whsec_test`.
const SECRET = 'whsec_test';
const BODY = Buffer.from('{"id":1,"type":"payment.succeeded"}');

describe('webhook signer', () => {
  it('v1 is the lowercase-hex HMAC-SHA256 of the raw body', () => {
    expect(signV1(SECRET, BODY)).toBe(
      '99ee048c62982abcb2adcf215ebd43e35c036ecf7f94d0119f331a74ade10aab',
    );
  });

  it('v2 is t=<unix>,v1=<HMAC of "<unix>." + body>', () => {
    expect(signV2(SECRET, BODY, 1767225600)).toBe(
      't=1767225600,v1=73fffe19b4a9ec52890c42dc0b3230d906822b2849882f49d38a2c8cbf4252ec',
    );
  });

  it('signs bytes, not a re-serialisation: one changed byte changes both signatures', () => {
    const other = Buffer.from('{"id":1, "type":"payment.succeeded"}');
    expect(signV1(SECRET, other)).not.toBe(signV1(SECRET, BODY));
    expect(signV2(SECRET, other, 1)).not.toBe(signV2(SECRET, BODY, 1));
  });

  it('produces the five headers of the interface', () => {
    const h = deliveryHeaders({
      secret: SECRET,
      body: BODY,
      deliveryId: 77,
      eventType: 'payment.succeeded',
      unixSeconds: 1767225600,
    });
    expect(h).toEqual({
      'X-Webhook-Signature': '99ee048c62982abcb2adcf215ebd43e35c036ecf7f94d0119f331a74ade10aab',
      'X-Webhook-Id': '77',
      'X-Webhook-Event': 'payment.succeeded',
      'X-Webhook-Timestamp': '1767225600',
      'X-Webhook-Signature-V2':
        't=1767225600,v1=73fffe19b4a9ec52890c42dc0b3230d906822b2849882f49d38a2c8cbf4252ec',
    });
  });
});
