import { Injectable } from '@nestjs/common';

import { DomainEventBus, OnDomainEvent } from '../common/domain-events';
import { PaymentSucceeded } from '../payments';
import { InvoicePaid, InvoicePartiallyPaid } from './invoice-events';
import { afterPayment } from './invoice-state';
import { InvoicesRepository } from './invoices.repository';

/**
 * Invoices settle themselves: a capture of an invoice's payment is counted
 * (less what the invoice does not need, which the payment keeps as excess),
 * in the transaction that recorded the capture. The invoice is locked after
 * the payment (lock order: payments, then their invoice).
 */
@Injectable()
export class InvoiceSettlementSubscriber {
  constructor(
    private readonly invoices: InvoicesRepository,
    private readonly bus: DomainEventBus,
  ) {}

  @OnDomainEvent(PaymentSucceeded)
  async onPaymentSucceeded(fact: PaymentSucceeded): Promise<void> {
    const payment = fact.payment;
    // A capture of another amount counts on no invoice: it is refunded whole.
    if (payment.invoiceId === null || fact.amountMismatch) return;
    const invoice = await this.invoices.getForUpdate(fact.scope, payment.invoiceId);
    const next = afterPayment(
      invoice.status,
      invoice.totalMinor,
      invoice.amountPaidMinor,
      payment.amountMinor,
    );
    fact.leaveExcess(next.excessMinor);
    if (next.countedMinor === 0) return;
    invoice.status = next.status;
    invoice.amountPaidMinor = next.paidMinor;
    const saved = await this.invoices.save(invoice);
    // The invoice's customer is the payment's (billing creates them so).
    const Fact = next.event === 'invoice.paid' ? InvoicePaid : InvoicePartiallyPaid;
    if (next.event)
      await this.bus.publish(new Fact(fact.scope, saved, fact.customerReference, payment.id));
  }
}
