import type { PaymentDto } from './dto/payment.dto';
import type { Payment } from './payment.entity';

export function toPaymentDto(p: Payment): PaymentDto {
  return {
    id: p.id,
    reference: p.reference,
    status: p.status,
    applicationId: p.appId,
    mode: p.mode,
    amountMinor: p.amountMinor,
    excessMinor: p.excessMinor,
    amountRefundedMinor: p.amountRefundedMinor,
    riskLevel: p.riskLevel,
    failureReason: p.failureReason,
    currency: p.currency,
    gateway: p.gateway,
    gatewayTxnId: p.gatewayTxnId,
    paymentMethod: p.paymentMethod,
    paymentMethodLabel: p.paymentMethodLabel,
    paymentMethodBrand: p.paymentMethodBrand,
    paymentMethodIssuer: p.paymentMethodIssuer,
    paymentMethodAccount: p.paymentMethodAccount,
    checkoutUrl: p.checkoutUrl,
    redirectUrl: p.successUrl,
    invoiceId: p.invoiceId,
    metadata: p.metadata,
    expiresAt: p.expiresAt.toISOString(),
    createdAt: p.createdAt.toISOString(),
    updatedAt: p.updatedAt.toISOString(),
  };
}

/** `data` of payment.* events (docs/webhooks.md). */
export function paymentEventData(
  p: Payment,
  previousStatus: string,
  customerReference: string,
): Record<string, unknown> {
  return {
    payment_id: p.id,
    previous_status: previousStatus.toLowerCase(),
    reference: p.reference,
    amount_minor: p.amountMinor,
    excess_minor: p.excessMinor,
    currency: p.currency,
    customer_reference: customerReference,
    invoice_id: p.invoiceId,
    gateway: p.gateway,
    gateway_txn_id: p.gatewayTxnId,
    payment_method: p.paymentMethod,
    metadata: p.metadata,
  };
}
