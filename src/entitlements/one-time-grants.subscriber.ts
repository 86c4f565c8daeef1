import { Injectable } from '@nestjs/common';
import { CatalogService } from '../catalog';
import { Clock } from '../common/clock/clock';
import { OnDomainEvent } from '../common/domain-events';
import { InvoicePaid } from '../invoices';
import { EntitlementsService } from './entitlements.service';

/** A paid one-time purchase grants its product's active benefits for good, in the paying transaction. */
@Injectable()
export class OneTimeGrantsSubscriber {
  constructor(
    private readonly entitlements: EntitlementsService,
    private readonly catalog: CatalogService,
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
}
