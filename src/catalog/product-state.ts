import { AppError } from '../common/errors/app-error';

export const PRODUCT_STATUSES = ['DRAFT', 'ACTIVE', 'ARCHIVED'] as const;
export type ProductStatus = (typeof PRODUCT_STATUSES)[number];

/**
 * What can happen to a product:
 * - `price_added`: an (active) price was created for it;
 * - `archive`: an admin archived it (no new purchases).
 * Deactivating a price is not an event of the product: an ACTIVE product
 * whose prices are all inactive stays ACTIVE (see docs/catalog.md).
 */
export type ProductEvent = 'price_added' | 'archive';

/** The whole state machine; a missing entry is an illegal transition. */
export const PRODUCT_TRANSITIONS: Readonly<
  Record<ProductStatus, Partial<Record<ProductEvent, ProductStatus>>>
> = {
  DRAFT: { price_added: 'ACTIVE', archive: 'ARCHIVED' },
  ACTIVE: { price_added: 'ACTIVE', archive: 'ARCHIVED' },
  // Archiving twice is a no-op; an archived product takes no new prices.
  ARCHIVED: { archive: 'ARCHIVED' },
};

/** The next status, or 409 INVALID_STATE when the event is not allowed. */
export function nextProductStatus(status: ProductStatus, event: ProductEvent): ProductStatus {
  const next = PRODUCT_TRANSITIONS[status][event];
  if (!next)
    throw AppError.invalidState(
      `A product in status ${status} does not allow ${event.replace('_', ' ')}`,
    );
  return next;
}

/** Only an ACTIVE product can be bought (with one of its active prices). */
export function isPurchasable(status: ProductStatus): boolean {
  return status === 'ACTIVE';
}
