import { Injectable } from '@nestjs/common';

import { ProductBenefitsChanged } from '../catalog';
import { OnDomainEvent } from '../common/domain-events';
import { SubscriptionLifecycle } from './subscription-lifecycle';
import { SubscriptionsRepository } from './subscriptions.repository';

/**
 * Entitlements follow the catalog: when a product gains an active benefit
 * (a benefit it carries is activated, or an active one is attached), every
 * TRIALING or ACTIVE subscription of it is granted that benefit in the same
 * transaction, with `subscription.entitlements_updated`. Subscriptions are
 * locked in id order after the catalog row (lock order: catalog, then
 * subscriptions).
 */
@Injectable()
export class SubscriptionBenefitsSubscriber {
  constructor(
    private readonly subscriptions: SubscriptionsRepository,
    private readonly lifecycle: SubscriptionLifecycle,
  ) {}

  @OnDomainEvent(ProductBenefitsChanged)
  async onProductBenefitsChanged(fact: ProductBenefitsChanged): Promise<void> {
    const live = await this.subscriptions.liveOfProductsForUpdate(fact.scope, fact.productIds);
    for (const sub of live)
      await this.lifecycle.syncBenefits(fact.scope, sub, new Date(this.lifecycle.nowOf(sub)));
  }
}
