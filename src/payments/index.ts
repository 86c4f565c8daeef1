/** The payments feature's public door: what other features may use. */
export { PaymentsModule } from './payments.module';
export { PaymentsService, type OpenedPayment, type OpenPaymentOptions } from './payments.service';
export { PaymentConfirmationsService } from './payment-confirmations.service';
export { PaymentSimulationService, type SettleOutcome } from './payment-simulation.service';
export type { Payment } from './payment.entity';
export type { PaymentStatus } from './payment-state';
export {
  PaymentCancelled,
  PaymentExpired,
  PaymentFailed,
  PaymentRevived,
  PaymentStatusChanged,
  PaymentSucceeded,
} from './payment-events';
export { toPaymentDto } from './payment.mapper';
export { CreatePaymentDto, PaymentDto } from './dto/payment.dto';
