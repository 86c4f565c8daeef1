import { normalizePhone } from './phone';

describe('customer phone numbers', () => {
  it.each([
    ['01711111111', '+8801711111111'],
    ['8801711111111', '+8801711111111'],
    ['+8801711111111', '+8801711111111'],
    ['+880 1711-111111', '+8801711111111'],
    ['017 1111 1111', '+8801711111111'],
    ['+447911123456', '+447911123456'],
    ['+14155552671', '+14155552671'],
    // As a Bangla keyboard types them (the dashboard's Bangla hint shows ০১XXXXXXXXX).
    ['০১৭১১১১১১১১', '+8801711111111'],
    ['+৮৮০ ১৭১১-১১১১১১', '+8801711111111'],
  ])('accepts %s as %s', (raw, stored) => expect(normalizePhone(raw)).toBe(stored));

  it.each([
    '1711111111',
    '01211111111',
    '0171111111',
    '+88017111111111',
    '447911123456',
    '+1234',
    'abc',
    '+8802912345678',
    '০১২১১১১১১১১',
  ])('refuses %s', (raw) => expect(normalizePhone(raw)).toBeNull());
});
