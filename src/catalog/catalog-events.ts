import { DomainEvent, OutboxEntry } from '../common/domain-events';
import type { TenantScope } from '../database/tenant';

/**
 * What these products grant changed: a benefit they carry was activated, or
 * an active one was attached to them. Published in the catalog change's
 * transaction, so live subscriptions of the products gain it in that same
 * transaction (decisions section 6: only active benefits are granted, to
 * every TRIALING or ACTIVE subscription of a product carrying them). Not an
 * app event: `subscription.entitlements_updated` tells apps what changed.
 */
export class ProductBenefitsChanged extends DomainEvent {
  constructor(
    scope: TenantScope,
    readonly productIds: readonly number[],
  ) {
    super(scope);
  }

  outbox(): OutboxEntry | null {
    return null;
  }
}
