import { afterPayment, amountDue, canVoid, INVOICE_STATUSES, isPayable } from './invoice-state';

describe('amountDue', () => {
  it('is what is left to pay', () => {
    expect(amountDue(123450, 0)).toBe(123450);
    expect(amountDue(123450, 23450)).toBe(100000);
    expect(amountDue(123450, 123450)).toBe(0);
  });

  it('never goes negative on an overpaid invoice', () => {
    expect(amountDue(1000, 1500)).toBe(0);
  });
});

describe('afterPayment', () => {
  it('a partial payment of an ISSUED invoice makes it PARTIALLY_PAID', () => {
    expect(afterPayment('ISSUED', 10000, 0, 4000)).toEqual({
      status: 'PARTIALLY_PAID',
      paidMinor: 4000,
      countedMinor: 4000,
      excessMinor: 0,
      event: 'invoice.partially_paid',
    });
  });

  it('paying the whole amount makes it PAID', () => {
    expect(afterPayment('ISSUED', 10000, 0, 10000)).toEqual({
      status: 'PAID',
      paidMinor: 10000,
      countedMinor: 10000,
      excessMinor: 0,
      event: 'invoice.paid',
    });
  });

  it('the remainder of a PARTIALLY_PAID invoice makes it PAID', () => {
    expect(afterPayment('PARTIALLY_PAID', 10000, 4000, 6000)).toMatchObject({
      status: 'PAID',
      paidMinor: 10000,
      excessMinor: 0,
      event: 'invoice.paid',
    });
  });

  it('another partial payment keeps it PARTIALLY_PAID and emits partially_paid again', () => {
    expect(afterPayment('PARTIALLY_PAID', 10000, 4000, 1000)).toMatchObject({
      status: 'PARTIALLY_PAID',
      paidMinor: 5000,
      event: 'invoice.partially_paid',
    });
  });

  it('an overpayment makes it PAID counting only its total; the rest is excess', () => {
    expect(afterPayment('ISSUED', 10000, 0, 12000)).toEqual({
      status: 'PAID',
      paidMinor: 10000,
      countedMinor: 10000,
      excessMinor: 2000,
      event: 'invoice.paid',
    });
  });

  it('a capture on a PAID or VOID invoice counts nothing: all of it is excess, no status change, no event', () => {
    expect(afterPayment('PAID', 10000, 10000, 500)).toEqual({
      status: 'PAID',
      paidMinor: 10000,
      countedMinor: 0,
      excessMinor: 500,
      event: null,
    });
    expect(afterPayment('VOID', 10000, 0, 10000)).toEqual({
      status: 'VOID',
      paidMinor: 0,
      countedMinor: 0,
      excessMinor: 10000,
      event: null,
    });
  });
});

describe('canVoid', () => {
  it('only an ISSUED invoice with nothing paid', () => {
    expect(canVoid('ISSUED', 0)).toBe(true);
    expect(canVoid('ISSUED', 1)).toBe(false);
    expect(canVoid('PARTIALLY_PAID', 0)).toBe(false);
    expect(canVoid('PARTIALLY_PAID', 500)).toBe(false);
    expect(canVoid('PAID', 10000)).toBe(false);
    expect(canVoid('VOID', 0)).toBe(false);
  });
});

describe('isPayable', () => {
  it('ISSUED and PARTIALLY_PAID only', () => {
    expect(INVOICE_STATUSES.filter(isPayable)).toEqual(['ISSUED', 'PARTIALLY_PAID']);
  });
});
