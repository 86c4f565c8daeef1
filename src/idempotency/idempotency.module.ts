import { Module } from '@nestjs/common';

import { IdempotencyRepository } from './idempotency.repository';
import { IdempotencyService } from './idempotency.service';
import { IdempotencyCleanupJob } from './idempotency-cleanup.job';

/**
 * Idempotency keys: the store, its housekeeping, and the recovery points
 * handlers record. The interceptor itself is registered globally in AppModule.
 */
@Module({
  providers: [IdempotencyRepository, IdempotencyService, IdempotencyCleanupJob],
  exports: [IdempotencyService, IdempotencyCleanupJob],
})
export class IdempotencyModule {}
