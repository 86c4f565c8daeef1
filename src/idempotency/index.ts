/** The idempotency feature's public door; its @Idempotent() decorator (idempotency.interceptor.ts) is a shared entry point. */
export { IdempotencyModule } from './idempotency.module';
export { IDEMPOTENCY_LEASE_MS, IdempotencyService } from './idempotency.service';
