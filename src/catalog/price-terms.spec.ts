import { AppError } from '../common/errors/app-error';
import { priceTerms, PriceTermsInput } from './price-terms';

function fieldsOf(input: PriceTermsInput): string[] {
  try {
    priceTerms(input);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('VALIDATION_FAILED');
    return (err as AppError).details!.map((d) => d.field);
  }
  throw new Error('expected a validation failure');
}

describe('priceTerms', () => {
  it('normalises ONE_TIME to null recurring fields', () => {
    expect(priceTerms({ type: 'ONE_TIME' })).toEqual({
      type: 'ONE_TIME',
      interval: null,
      intervalCount: null,
      trialDays: null,
    });
  });

  it('refuses recurring fields on ONE_TIME, naming each', () => {
    expect(fieldsOf({ type: 'ONE_TIME', interval: 'MONTH' })).toEqual(['interval']);
    expect(fieldsOf({ type: 'ONE_TIME', trialDays: 0 })).toEqual(['trialDays']);
    expect(fieldsOf({ type: 'ONE_TIME', interval: 'DAY', intervalCount: 1, trialDays: 3 })).toEqual(
      ['interval', 'intervalCount', 'trialDays'],
    );
  });

  it('requires interval and intervalCount for RECURRING and defaults trialDays to 0', () => {
    expect(fieldsOf({ type: 'RECURRING' })).toEqual(['interval', 'intervalCount']);
    expect(fieldsOf({ type: 'RECURRING', interval: 'MONTH' })).toEqual(['intervalCount']);
    expect(fieldsOf({ type: 'RECURRING', intervalCount: 1 })).toEqual(['interval']);
    expect(priceTerms({ type: 'RECURRING', interval: 'MONTH', intervalCount: 1 })).toEqual({
      type: 'RECURRING',
      interval: 'MONTH',
      intervalCount: 1,
      trialDays: 0,
    });
  });

  it('bounds trialDays to 0..730', () => {
    expect(
      priceTerms({ type: 'RECURRING', interval: 'YEAR', intervalCount: 1, trialDays: 730 })
        .trialDays,
    ).toBe(730);
    expect(
      fieldsOf({ type: 'RECURRING', interval: 'YEAR', intervalCount: 1, trialDays: 731 }),
    ).toEqual(['trialDays']);
    expect(
      fieldsOf({ type: 'RECURRING', interval: 'YEAR', intervalCount: 1, trialDays: -1 }),
    ).toEqual(['trialDays']);
  });

  it('limits the billing period to three years', () => {
    for (const [interval, max] of [
      ['DAY', 1095],
      ['WEEK', 156],
      ['MONTH', 36],
      ['YEAR', 3],
    ] as const) {
      expect(priceTerms({ type: 'RECURRING', interval, intervalCount: max }).intervalCount).toBe(
        max,
      );
      expect(fieldsOf({ type: 'RECURRING', interval, intervalCount: max + 1 })).toEqual([
        'intervalCount',
      ]);
    }
  });
});
