import { AppError } from '../errors/app-error';
import { createdRange, likePrefix, searchTerm } from './list-filters';

describe('list filters: from/to and q', () => {
  it('a day is the Asia/Dhaka day: from its midnight (18:00 UTC the day before) to the next', () => {
    expect(createdRange('2025-03-11', '2025-03-11')).toEqual({
      since: new Date('2025-03-10T18:00:00.000Z'),
      until: new Date('2025-03-11T18:00:00.000Z'),
    });
    expect(createdRange(undefined, '2024-12-31')).toEqual({
      since: undefined,
      until: new Date('2024-12-31T18:00:00.000Z'),
    });
    expect(createdRange('2024-03-01', undefined).since).toEqual(
      new Date('2024-02-29T18:00:00.000Z'),
    );
    expect(createdRange()).toEqual({ since: undefined, until: undefined });
  });

  it('an instant (operators only) is itself; `to` is exclusive', () => {
    expect(createdRange('2025-03-10T18:00:00Z', '2025-03-11T00:00:00+06:00')).toEqual({
      since: new Date('2025-03-10T18:00:00Z'),
      until: new Date('2025-03-10T18:00:00Z'),
    });
  });

  it('from after to is 400 VALIDATION_FAILED naming from; the same day is one day', () => {
    const refused = (from: string, to: string) => {
      try {
        createdRange(from, to);
      } catch (err) {
        expect(err).toBeInstanceOf(AppError);
        return (err as AppError).details?.[0].field;
      }
      return null;
    };
    expect(refused('2025-03-12', '2025-03-11')).toBe('from');
    expect(refused('2025-03-11T00:00:01Z', '2025-03-11T00:00:00Z')).toBe('from');
    // A day to at 2025-03-11 ends at 2025-03-11T18:00Z: an instant before that is not after it.
    expect(refused('2025-03-11T17:59:59Z', '2025-03-11')).toBeNull();
    expect(refused('2025-03-11', '2025-03-11')).toBeNull();
  });

  it('q: trimmed, with the forms each field compares against; empty is no search', () => {
    expect(searchTerm(undefined)).toBeNull();
    expect(searchTerm('   ')).toBeNull();
    expect(searchTerm(' inv-000042 ')).toEqual({
      text: 'inv-000042',
      upper: 'INV-000042',
      lower: 'inv-000042',
      id: null,
    });
    expect(searchTerm('42')?.id).toBe(42);
    expect(searchTerm('0')?.id).toBeNull();
    expect(searchTerm('99999999999999999')?.id).toBeNull();
    expect(searchTerm('9007199254740991')?.id).toBe(9007199254740991);
    expect(searchTerm('9007199254740992')?.id).toBeNull();
  });

  it('LIKE prefixes match wildcards literally', () => {
    expect(likePrefix('a_b%c\\d')).toBe('a\\_b\\%c\\\\d%');
  });
});
