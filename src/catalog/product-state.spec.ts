import fc from 'fast-check';

import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import {
  isPurchasable,
  nextProductStatus,
  PRODUCT_STATUSES,
  ProductEvent,
  ProductStatus,
} from './product-state';

const EVENTS: ProductEvent[] = ['price_added', 'archive'];

/** The expected table, written out independently of the implementation. */
const EXPECTED: Record<ProductStatus, Record<ProductEvent, ProductStatus | 'INVALID'>> = {
  DRAFT: { price_added: 'ACTIVE', archive: 'ARCHIVED' },
  ACTIVE: { price_added: 'ACTIVE', archive: 'ARCHIVED' },
  ARCHIVED: { price_added: 'INVALID', archive: 'ARCHIVED' },
};

function outcome(status: ProductStatus, event: ProductEvent): ProductStatus | 'INVALID' {
  try {
    return nextProductStatus(status, event);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe(ErrorCode.INVALID_STATE);
    return 'INVALID';
  }
}

describe('product state machine', () => {
  it.each(PRODUCT_STATUSES.flatMap((s) => EVENTS.map((e) => [s, e] as const)))(
    '%s + %s',
    (status, event) => {
      expect(outcome(status, event)).toBe(EXPECTED[status][event]);
    },
  );

  it('never leaves ARCHIVED and only an ACTIVE product is purchasable, whatever the sequence', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...EVENTS), { maxLength: 20 }), (events) => {
        let status: ProductStatus = 'DRAFT';
        let archived = false;
        for (const e of events) {
          const next = outcome(status, e);
          if (next === 'INVALID') {
            expect(status).toBe('ARCHIVED');
            continue;
          }
          if (archived) expect(next).toBe('ARCHIVED');
          status = next;
          archived ||= status === 'ARCHIVED';
        }
        expect(isPurchasable(status)).toBe(status === 'ACTIVE');
        expect(status === 'DRAFT').toBe(
          !events.includes('price_added') && !events.includes('archive'),
        );
      }),
    );
  });
});
