/** The payments feature's public door: what other features may use. */
export { CreatePaymentDto, PaymentDto } from './dto/payment.dto';
export { InvoicePayPages } from './invoice-pay-pages';
export type { Payment } from './payment.entity';
export { toPaymentDto } from './payment.mapper';
export { PaymentConfirmationsService } from './payment-confirmations.service';
export {
  CaptureSettled,
  PaymentCancelled,
  PaymentExpired,
  PaymentFailed,
  PaymentRevived,
  PaymentStatusChanged,
  PaymentSucceeded,
} from './payment-events';
export { PaymentSimulationService, type SettleOutcome } from './payment-simulation.service';
export type { PaymentStatus } from './payment-state';
export { PaymentsModule } from './payments.module';
export { type OpenedPayment, type OpenPaymentOptions, PaymentsService } from './payments.service';
