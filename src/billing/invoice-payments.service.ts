import { Injectable } from '@nestjs/common';
import { Transactional } from '@nestjs-cls/transactional';

import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import type { TenantScope } from '../database/tenant';
import { amountDueOf, InvoicesService, type InvoiceTemplate, type InvoiceView } from '../invoices';
import {
  type CreatePaymentDto,
  type OpenedPayment,
  type Payment,
  PaymentConfirmationsService,
  PaymentsService,
} from '../payments';

/** Open pay-page checkouts an invoice may have at once. */
export const MAX_OPEN_CHECKOUTS = 3;

/**
 * Paying invoices: the use cases that need both invoices and payments, above
 * both. Each locks the invoice once, decides what is due, and writes the
 * PENDING payment in one short transaction; the gateway's checkout is then
 * opened with no transaction open.
 */
@Injectable()
export class InvoicePaymentsService {
  constructor(
    private readonly invoices: InvoicesService,
    private readonly payments: PaymentsService,
    private readonly confirmations: PaymentConfirmationsService,
  ) {}

  /**
   * `POST /api/v1/payments`: a payment, of an invoice when `invoiceId` is
   * given. A retry of an idempotent request that died after its payment was
   * committed resumes with that payment instead of creating another.
   */
  async createPayment(scope: TenantScope, input: CreatePaymentDto): Promise<Payment> {
    const resumed = await this.payments.resumed(scope);
    if (resumed) return this.payments.openCheckout(resumed);
    const { payment, customer } =
      input.invoiceId === undefined
        ? await this.payments.openPending(scope, input)
        : await this.openOnInvoice(scope, input.invoiceId, input);
    return this.payments.openCheckout(payment, customer);
  }

  /**
   * An API payment of an invoice may take only what is not yet reserved: its
   * amount plus the invoice's PENDING payments must fit what is due. The
   * invoice stays locked until this transaction commits, so two creates for
   * one invoice are decided one after the other.
   */
  @Transactional()
  private async openOnInvoice(
    scope: TenantScope,
    invoiceId: number,
    input: CreatePaymentDto,
  ): Promise<OpenedPayment> {
    const { invoice, payable, dueMinor, customer } = await this.invoices.lockForPayment(
      scope,
      invoiceId,
    );
    if (!payable)
      throw AppError.invalidState(`A ${invoice.status.toLowerCase()} invoice cannot be paid`);
    const open = await this.payments.reservingOfInvoice(scope, invoiceId);
    const reserved = open.reduce((sum, p) => sum + p.amountMinor, 0);
    if (input.amountMinor + reserved > dueMinor) {
      const ids = open.map((p) => p.id);
      const message =
        `amountMinor ${input.amountMinor} exceeds what invoice ${invoiceId} still needs: ${dueMinor} due` +
        (ids.length ? `, of which ${reserved} is reserved by open payments ${ids.join(', ')}` : '');
      throw new AppError(ErrorCode.AMOUNT_OUT_OF_RANGE, message, [
        { field: 'amountMinor', message },
      ]);
    }
    return this.payments.openPending(scope, input, { customer });
  }

  /** What the hosted pay page shows, and whether a payment of its mode can be taken at all. */
  async payPage(token: string): Promise<{
    view: InvoiceView;
    template: InvoiceTemplate | null;
    canPay: boolean;
    gateways: string[];
    outsideLimits: boolean;
  } | null> {
    const found = await this.invoices.payPageOf(token);
    if (!found) return null;
    const i = found.view.invoice;
    const scope = { appId: i.appId, mode: i.mode };
    // Only gateways whose per-transaction limits admit what is due (decisions section 11).
    const gateways = await this.payments.gatewayChoices(scope, amountDueOf(i));
    const outsideLimits =
      gateways.length === 0 && (await this.payments.gatewayChoices(scope)).length > 0;
    return { ...found, canPay: gateways.length > 0, gateways, outsideLimits };
  }

  /**
   * The Pay button: a payment for the amount due, reusing an open one for the
   * same amount (a double click opens one checkout, not two). First the
   * invoice's earlier checkouts are brought up to date with their gateway (a
   * checkout paid there but never reported back must not be reused, and a
   * capture found that way is recorded even if the click then fails).
   */
  async payFromPage(token: string, gateway?: string): Promise<Payment> {
    const found = await this.invoices.findByPayToken(token);
    if (!found) throw AppError.notFound('Invoice');
    const scope = { appId: found.appId, mode: found.mode };
    await this.confirmations.refreshCheckoutsForInvoice(scope, found.id);
    const { payment, customer } = await this.openForDue(scope, found.id, gateway || undefined);
    return this.payments.openCheckout(payment, customer);
  }

  @Transactional()
  private async openForDue(
    scope: TenantScope,
    invoiceId: number,
    gateway?: string,
  ): Promise<OpenedPayment> {
    const { invoice, payable, dueMinor, customer } = await this.invoices.lockForPayment(
      scope,
      invoiceId,
    );
    if (!payable) throw AppError.invalidState(`This invoice is ${invoice.status.toLowerCase()}`);
    // A double click reuses the open checkout; so does coming back to a gateway
    // already tried: the newest open one for it, for this amount.
    const open = await this.payments.openPaymentFor(scope, invoice.id, dueMinor, gateway);
    if (open) return { payment: open, customer };
    // At most MAX_OPEN_CHECKOUTS at a time: clicks cannot multiply checkouts (decisions 14).
    if ((await this.payments.countPendingOfInvoice(scope, invoice.id)) >= MAX_OPEN_CHECKOUTS)
      throw new AppError(
        ErrorCode.RATE_LIMITED,
        `Invoice ${invoice.number} already has ${MAX_OPEN_CHECKOUTS} open checkouts; finish one or wait until they expire`,
      );
    const back = this.invoices.payableUrl(invoice);
    return this.payments.openPending(
      scope,
      {
        amountMinor: dueMinor,
        customerReference: customer.externalId,
        invoiceId: invoice.id,
        description: `Invoice ${invoice.number}`,
        successUrl: back,
        failUrl: back,
        cancelUrl: back,
        gateway,
      },
      { hosted: true, customer },
    );
  }
}
