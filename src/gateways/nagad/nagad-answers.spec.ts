import {
  minorOfNagadAmount,
  NAGAD_MAX_MINOR,
  nagadAmount,
  nagadChallenge,
  nagadDateTime,
  nagadOrderId,
  nagadOutcome,
  orderIdIsFor,
} from './nagad-answers';

describe("Nagad's amount, exact both ways (no floats)", () => {
  it('sends minor units as taka with two decimals, from one poisha to the 15-character maximum', () => {
    expect(nagadAmount(1)).toBe('0.01');
    expect(nagadAmount(13050)).toBe('130.50');
    expect(nagadAmount(NAGAD_MAX_MINOR)).toBe('999999999999.99');
    expect(nagadAmount(NAGAD_MAX_MINOR)).toHaveLength(15);
    for (const bad of [0, -1, NAGAD_MAX_MINOR + 1, 1.5]) expect(() => nagadAmount(bad)).toThrow();
  });

  it('reads "130", "130.5" and "130.50" exactly, and one poisha and the maximum', () => {
    expect(minorOfNagadAmount('130')).toBe(13000);
    expect(minorOfNagadAmount('130.5')).toBe(13050);
    expect(minorOfNagadAmount('130.50')).toBe(13050);
    expect(minorOfNagadAmount('0.01')).toBe(1);
    expect(minorOfNagadAmount('999999999999.99')).toBe(NAGAD_MAX_MINOR);
    // 0.29 * 100 is 28.999999999999996 in floats.
    expect(minorOfNagadAmount('0.29')).toBe(29);
  });

  it('refuses three decimals, more than 15 characters, signs, numbers and words as garbage', () => {
    for (const bad of [
      '130.505',
      '16.005',
      '1000000000000.00',
      '9999999999999999',
      '-1',
      '+1',
      '1e3',
      ' 130',
      '130.',
      '.5',
      '',
      130,
      null,
      undefined,
    ])
      expect(minorOfNagadAmount(bad)).toBeNull();
  });
});

describe("Nagad's dateTime: yyyyMMddHHmmss in Asia/Dhaka, zero-padded", () => {
  it('is six hours ahead of UTC, across midnight UTC and the year', () => {
    expect(nagadDateTime(new Date('2024-02-02T06:49:53Z'))).toBe('20240202124953');
    expect(nagadDateTime(new Date('2026-03-04T17:59:59Z'))).toBe('20260304235959');
    // Midnight UTC crossed in Dhaka six hours earlier: 18:00 UTC is the next day there.
    expect(nagadDateTime(new Date('2026-03-04T18:00:00Z'))).toBe('20260305000000');
    expect(nagadDateTime(new Date('2026-03-04T23:59:59Z'))).toBe('20260305055959');
    expect(nagadDateTime(new Date('2026-03-05T00:00:01Z'))).toBe('20260305060001');
    expect(nagadDateTime(new Date('2025-12-31T18:00:00Z'))).toBe('20260101000000');
    // Zero-padded month and day (an unpadded month failed on LIVE).
    expect(nagadDateTime(new Date('2022-01-06T02:03:04Z'))).toBe('20220106080304');
  });
});

describe("Nagad's orderId from Joma's payment reference", () => {
  const reference = 'pay_Ab-Cd_EfGhIjKlMnOpQrStUv';

  it("is 20 letters and digits: the reference's first 14 after pay_, then random ones", () => {
    const id = nagadOrderId(reference, () => 0);
    expect(id).toBe('AbCdEfGhIjKlMnAAAAAA');
    expect(nagadOrderId(reference)).toMatch(/^AbCdEfGhIjKlMn[A-Za-z0-9]{6}$/);
    expect(nagadOrderId(reference)).not.toBe(nagadOrderId(reference));
  });

  it('a reference with few letters and digits still gives 20 (Nagad: 5 to 20)', () => {
    expect(nagadOrderId('pay_-_-_-_a', () => 61)).toBe('a9999999999999999999');
    expect(nagadOrderId('x')).toMatch(/^x[A-Za-z0-9]{19}$/);
  });

  it("maps back: an orderId is known as its payment's, and no other's", () => {
    const id = nagadOrderId(reference);
    expect(orderIdIsFor(id, reference)).toBe(true);
    expect(orderIdIsFor(id, 'pay_Ab-Cd_EfGhIjKlMzzzzzzzzzzz')).toBe(false);
    expect(orderIdIsFor('CKH060JXXXXXFRA2', 'pay_CKH060JXXXXXFRA2')).toBe(true);
    expect(orderIdIsFor(id, 'pay_---')).toBe(false);
  });

  it("the merchant's challenge is 40 hex characters", () => {
    expect(nagadChallenge()).toMatch(/^[0-9a-f]{40}$/);
  });
});

describe("verify's status, case-insensitively", () => {
  it.each([
    ['Success', null, 'captured'],
    ['success', null, 'captured'],
    ['OrderInitiated', null, 'open'],
    ['Ready', null, 'open'],
    ['InProgress', null, 'open'],
    ['OtpSent', null, 'open'],
    ['OtpVerified', null, 'open'],
    ['PinGiven', null, 'open'],
    ['Aborted', null, 'cancelled'],
    ['Cancelled', null, 'cancelled'],
    ['Cancelled', '70IZV6G7', 'captured'],
    ['PartialCancelled', '70IZV6G7', 'captured'],
    ['PartialCancelled', null, null],
    ['Failed', null, 'failed'],
    ['Fraud', null, 'failed'],
    ['InvalidRequest', null, 'failed'],
    ['UnKnownFailed', null, 'failed'],
    ['UnknownFailed', null, 'failed'],
    ['Settled', null, null],
    [undefined, null, null],
  ])('%s (issuer reference %s): %s', (status, ref, outcome) => {
    expect(nagadOutcome(status, ref)).toBe(outcome);
  });
});
