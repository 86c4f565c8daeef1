import { Injectable } from '@nestjs/common';

import { DomainEventBus, OnDomainEvent } from '../common/domain-events';
import { CaptureSettled, PaymentSucceeded } from '../payments';
import { InvoicePaid, InvoicePartiallyPaid } from './invoice-events';
import { afterPayment } from './invoice-state';
import { InvoicesRepository } from './invoices.repository';

/**
 * Invoices settle themselves: a capture of an invoice's payment is counted
 * (at most what the invoice still needs), in the transaction that recorded
 * the capture, and what was counted is published as the capture's
 * CaptureSettled, once per capture: the excess refund, the receipt and
 * payment.succeeded follow from it. The invoice is locked after the payment
 * (lock order: payments, then their invoice).
 */
@Injectable()
export class InvoiceSettlementSubscriber {
  constructor(
    private readonly invoices: InvoicesRepository,
    private readonly bus: DomainEventBus,
  ) {}

  @OnDomainEvent(PaymentSucceeded)
  async onPaymentSucceeded(capture: PaymentSucceeded): Promise<void> {
    const payment = capture.payment;
    // A capture of another amount counts on no invoice: it is refunded whole.
    if (capture.amountMismatch)
      return this.bus.publish(new CaptureSettled(capture, 0, payment.amountMinor));
    // A payment tied to no invoice has nothing to count against: it is kept whole.
    if (payment.invoiceId === null)
      return this.bus.publish(new CaptureSettled(capture, payment.amountMinor, 0));
    const invoice = await this.invoices.getForUpdate(capture.scope, payment.invoiceId);
    const next = afterPayment(
      invoice.status,
      invoice.totalMinor,
      invoice.amountPaidMinor,
      payment.amountMinor,
    );
    // Queued (this runs inside the capture's dispatch) ahead of the invoice fact below:
    // payment.succeeded reaches the outbox before the invoice.paid it causes.
    await this.bus.publish(new CaptureSettled(capture, next.countedMinor, next.excessMinor));
    if (next.countedMinor === 0) return;
    invoice.status = next.status;
    invoice.amountPaidMinor = next.paidMinor;
    const saved = await this.invoices.save(invoice);
    // The invoice's customer is the payment's (billing creates them so).
    const Fact = next.event === 'invoice.paid' ? InvoicePaid : InvoicePartiallyPaid;
    if (next.event)
      await this.bus.publish(new Fact(capture.scope, saved, capture.customerReference, payment.id));
  }
}
