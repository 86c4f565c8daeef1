import { buildEnvelopeBody, sortedJson } from './envelope';

describe('webhook envelope', () => {
  const input = {
    deliveryId: 12,
    type: 'payment.succeeded',
    createdAt: new Date('2026-08-01T10:00:00.123Z'),
    mode: 'LIVE' as const,
    appId: 3,
    data: {
      status: 'succeeded',
      payment_id: 5,
      amount_minor: 150000,
      nested: { z: 1, a: [{ y: 2, b: 1 }] },
    },
  };

  it('emits the keys in the interface order, compact, data with sorted keys', () => {
    expect(buildEnvelopeBody(input)).toBe(
      '{"id":12,"type":"payment.succeeded","created_at":"2026-08-01T10:00:00.123Z","mode":"LIVE","app_id":3,"schema_version":1,' +
        '"data":{"amount_minor":150000,"nested":{"a":[{"b":1,"y":2}],"z":1},"payment_id":5,"status":"succeeded"}}',
    );
    expect(Object.keys(JSON.parse(buildEnvelopeBody(input)))).toEqual([
      'id',
      'type',
      'created_at',
      'mode',
      'app_id',
      'schema_version',
      'data',
    ]);
  });

  it('spells equal data one way whatever the key order it came in', () => {
    expect(sortedJson({ b: 1, a: { d: null, c: 'x' } })).toBe(
      sortedJson({ a: { c: 'x', d: null }, b: 1 }),
    );
  });

  it('escapes text safely (quotes, non-ASCII, lone surrogates)', () => {
    const body = buildEnvelopeBody({
      ...input,
      data: { note: '৳1,234.50 "quoted"\n', odd: '\ud800' },
    });
    expect(JSON.parse(body).data).toEqual({ note: '৳1,234.50 "quoted"\n', odd: '\ud800' });
    expect(body).toContain('\\ud800');
  });
});
