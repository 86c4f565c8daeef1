import { smsClientId } from './sms-channel';

/** SSL Wireless takes a `csms_id` of at most 20 letters and digits (4020 Invalid CSMS ID otherwise). */
describe('smsClientId', () => {
  it.each([1, 42, 9_999_999, Number.MAX_SAFE_INTEGER])(
    'notification %i: at most 20 ASCII letters and digits, the same every time',
    (id) => {
      const csmsId = smsClientId(id);
      expect(csmsId).toMatch(/^[A-Za-z0-9]{1,20}$/);
      expect(smsClientId(id)).toBe(csmsId);
    },
  );

  it('differs between notifications', () => {
    const ids = [1, 2, 10, 11, 12, 101, 2 ** 40, 2 ** 40 + 1];
    expect(new Set(ids.map(smsClientId)).size).toBe(ids.length);
  });

  it('refuses what is not a notification id', () => {
    for (const id of [0, -1, 1.5, Number.MAX_SAFE_INTEGER + 1])
      expect(() => smsClientId(id)).toThrow();
  });
});
