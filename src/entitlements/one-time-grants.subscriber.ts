import { Injectable } from '@nestjs/common';

import { CatalogService, ProductBenefitsChanged } from '../catalog';
import { Clock } from '../common/clock/clock';
import { OnDomainEvent } from '../common/domain-events';
import { InvoicePaid, InvoicesService } from '../invoices';
import { EntitlementsService } from './entitlements.service';

/**
 * A paid one-time purchase grants its product's active benefits for good, in
 * the paying transaction; and a product that gains an active benefit later
 * grants it to those who bought it once (decisions section 6: held for ever
 * once a ONE_TIME purchase of a product carrying it is paid).
 */
@Injectable()
export class OneTimeGrantsSubscriber {
  constructor(
    private readonly entitlements: EntitlementsService,
    private readonly catalog: CatalogService,
    private readonly invoices: InvoicesService,
    private readonly clock: Clock,
  ) {}

  @OnDomainEvent(InvoicePaid)
  async onInvoicePaid(fact: InvoicePaid): Promise<void> {
    const invoice = fact.invoice;
    if (invoice.subscriptionId !== null || invoice.priceId === null) return;
    const price = await this.catalog.priceOf(fact.scope, invoice.priceId);
    if (!price || price.type !== 'ONE_TIME') return;
    await this.entitlements.grantForInvoice(fact.scope, invoice, price.productId, this.clock.now());
  }

  @OnDomainEvent(ProductBenefitsChanged)
  async onProductBenefitsChanged(fact: ProductBenefitsChanged): Promise<void> {
    const now = this.clock.now();
    for (const productId of fact.productIds) {
      const priceIds = await this.catalog.oneTimePriceIdsOf(fact.scope, [productId]);
      for (const invoice of await this.invoices.paidOfPrices(fact.scope, priceIds))
        await this.entitlements.grantForInvoice(fact.scope, invoice, productId, now);
    }
  }
}
