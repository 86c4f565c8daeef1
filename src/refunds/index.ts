/** The refunds feature's public door. */
export { RefundsModule } from './refunds.module';
export { RefundsService } from './refunds.service';
export { RefundRecheckJob } from './refund-recheck.job';
export { RefundFact, RefundFailed, RefundPending, RefundSucceeded } from './refund-events';
export type { Refund, RefundStatus } from './refund.entity';
