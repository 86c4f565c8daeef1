import type { RefundDto } from './dto/refund.dto';
import type { Refund } from './refund.entity';

export function toRefundDto(r: Refund): RefundDto {
  return {
    id: r.id,
    paymentId: r.paymentId,
    invoiceId: r.invoiceId,
    amountMinor: r.amountMinor,
    currency: r.currency,
    status: r.status,
    reason: r.reason,
    approvalRequired: r.approvalRequired,
    manual: r.manual,
    gatewayRefundId: r.gatewayRefundId,
    failureReason: r.failureReason,
    mode: r.mode,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}
