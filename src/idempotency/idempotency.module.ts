import { Module } from '@nestjs/common';
import { IdempotencyCleanupJob } from './idempotency-cleanup.job';
import { IdempotencyRepository } from './idempotency.repository';
import { IdempotencyService } from './idempotency.service';

/**
 * Idempotency keys: the store, its housekeeping, and the recovery points
 * handlers record. The interceptor itself is registered globally in AppModule.
 */
@Module({
  providers: [IdempotencyRepository, IdempotencyService, IdempotencyCleanupJob],
  exports: [IdempotencyService, IdempotencyCleanupJob],
})
export class IdempotencyModule {}
