import { safePath } from './logging';

describe('safePath', () => {
  it.each([
    ['/pay/abcDEF123_-token', '/pay/***'],
    ['/pay/result/pay_Uh8uw1MHC9b5', '/pay/***'],
    ['/sandbox/checkout/sbx_secret?x=1', '/sandbox/checkout/***'],
    ['/api/v1/payments/12?expand=all', '/api/v1/payments/12'],
    ['/api/v1/gateways/sandbox/return?session_id=sbx_1', '/api/v1/gateways/sandbox/return'],
  ])('%s -> %s', (input, expected) => {
    expect(safePath(input)).toBe(expected);
  });
});
