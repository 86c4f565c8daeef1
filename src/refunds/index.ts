/** The refunds feature's public door. */
export type { Refund, RefundStatus } from './refund.entity';
export { RefundFact, RefundFailed, RefundPending, RefundSucceeded } from './refund-events';
export { RefundRecheckJob } from './refund-recheck.job';
export { RefundsModule } from './refunds.module';
export { RefundsService } from './refunds.service';
