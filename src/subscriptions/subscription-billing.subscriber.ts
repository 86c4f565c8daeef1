import { Injectable } from '@nestjs/common';

import { OnDomainEvent } from '../common/domain-events';
import { InvoicePaid, InvoicesService } from '../invoices';
import { PaymentFailed } from '../payments';
import { SubscriptionLifecycle } from './subscription-lifecycle';
import { SubscriptionsRepository } from './subscriptions.repository';

/**
 * A subscription follows its invoices, in the transaction that settles
 * them (pay page, POST /payments with invoiceId, late settlement alike).
 * Lock order: payment, invoice, then subscription.
 */
@Injectable()
export class SubscriptionBillingSubscriber {
  constructor(
    private readonly subscriptions: SubscriptionsRepository,
    private readonly lifecycle: SubscriptionLifecycle,
    private readonly invoices: InvoicesService,
  ) {}

  /**
   * Paid: subscription.payment_succeeded; INCOMPLETE -> ACTIVE (its first
   * period starts today) and PAST_DUE -> ACTIVE, benefits granted
   * (subscription.activated); a paid renewal invoice then says
   * subscription.renewed. A period that ended meanwhile renews at the
   * scheduler's next tick.
   */
  @OnDomainEvent(InvoicePaid)
  async onInvoicePaid(fact: InvoicePaid): Promise<void> {
    const invoice = fact.invoice;
    if (invoice.subscriptionId === null) return;
    const scope = fact.scope;
    const sub = await this.subscriptions.lock(scope, invoice.subscriptionId);
    const previous = sub.status;
    const at = new Date(this.lifecycle.nowOf(sub));
    const ids = { invoice_id: invoice.id, payment_id: fact.paymentId };
    const renewal = sub.firstInvoicePaid;
    sub.firstInvoicePaid = true;
    if (sub.openInvoiceId === invoice.id) {
      sub.openInvoiceId = null;
      sub.openInvoiceDueDate = null;
    }
    await this.lifecycle.publish(scope, sub, 'subscription.payment_succeeded', previous, ids);
    if (previous === 'INCOMPLETE') {
      this.lifecycle.startPeriods(sub, this.lifecycle.todayOf(sub));
      await this.lifecycle.step(scope, sub, 'invoice_paid', at, ids);
    } else if (previous === 'PAST_DUE') {
      await this.lifecycle.step(scope, sub, 'invoice_paid', at, ids);
    }
    // A renewal paid while PAUSED renewed the subscription too; a late capture on a CANCELED one did not.
    if (renewal && (sub.status === 'ACTIVE' || sub.status === 'PAUSED'))
      await this.lifecycle.publish(scope, sub, 'subscription.renewed', previous, ids);
    await this.lifecycle.save(sub);
  }

  /** The gateway refused a payment of a subscription's invoice: subscription.payment_failed. */
  @OnDomainEvent(PaymentFailed)
  async onPaymentFailed(fact: PaymentFailed): Promise<void> {
    const invoiceId = fact.payment.invoiceId;
    if (invoiceId === null) return;
    const { invoice } = await this.invoices.get(fact.scope, invoiceId);
    if (invoice.subscriptionId === null) return;
    const sub = await this.subscriptions.get(fact.scope, invoice.subscriptionId);
    await this.lifecycle.publish(fact.scope, sub, 'subscription.payment_failed', sub.status, {
      invoice_id: invoiceId,
      payment_id: fact.payment.id,
    });
  }
}
