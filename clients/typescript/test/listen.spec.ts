import { buildEnvelopeBody } from '../../../src/webhooks/delivery/envelope';
import { deliveryBody, parseListenArgs, signedHeaders } from '../src/listen';
import { verifyWebhook } from '../src/webhooks';

/** joma listen's own pieces: the body it forwards when polling, its signature, its arguments. */
describe('joma listen', () => {
  it("builds a polled event's body byte for byte as the service builds a delivery's", () => {
    const data = { b: 2, a: { z: [1, { y: null, x: 'x' }], c: 'ৎ' }, amount_minor: 150000 };
    const createdAt = new Date('2026-11-29T10:00:00.123Z');
    expect(
      deliveryBody({
        id: 42,
        type: 'payment.succeeded',
        createdAt: createdAt.toISOString(),
        mode: 'TEST',
        applicationId: 7,
        data,
      }),
    ).toBe(
      buildEnvelopeBody({
        deliveryId: 42,
        type: 'payment.succeeded',
        createdAt,
        mode: 'TEST',
        appId: 7,
        data,
      }),
    );
  });

  it('signs what it forwards so that verifyWebhook accepts it, and refuses another secret', () => {
    const body = '{"id":1,"type":"invoice.paid"}';
    const headers = signedHeaders(body, 'whsec_listen_x', '1', 'invoice.paid');
    expect(verifyWebhook(body, headers, 'whsec_listen_x')).toMatchObject({
      id: '1',
      version: 'v2',
    });
    expect(() => verifyWebhook(body, headers, 'whsec_other')).toThrow(/signature mismatch/);
  });

  it('reads its arguments and the environment, and names what is wrong', () => {
    expect(
      parseListenArgs(
        ['--forward-to=http://localhost:4242/hooks', '--events', 'invoice.paid, refund.succeeded'],
        {
          JOMA_API_KEY: 'pk_test_1',
          JOMA_API_SECRET: 'sk_test_1',
        },
      ),
    ).toEqual({
      baseUrl: 'http://localhost:3000',
      apiKey: 'pk_test_1',
      apiSecret: 'sk_test_1',
      forwardTo: 'http://localhost:4242/hooks',
      publicUrl: undefined,
      port: undefined,
      events: ['invoice.paid', 'refund.succeeded'],
      printJson: false,
    });
    expect(parseListenArgs([], {})).toMatch(/--api-key and --api-secret/);
    expect(parseListenArgs(['--api-key', 'k', '--api-secret', 's', '--port', 'x'], {})).toBe(
      '--port must be a port number',
    );
    expect(
      parseListenArgs(['--api-key', 'k', '--api-secret', 's', '--forward-to', 'ftp://x'], {}),
    ).toBe('--forward-to must be an http(s) URL');
    expect(parseListenArgs(['--bogus', '1'], {})).toBe('Unknown option: --bogus');
  });
});
