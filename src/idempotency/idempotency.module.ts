import { Module } from '@nestjs/common';
import { IdempotencyCleanupJob } from './idempotency-cleanup.job';

/** The store's housekeeping; the interceptor itself is registered globally in AppModule. */
@Module({ providers: [IdempotencyCleanupJob], exports: [IdempotencyCleanupJob] })
export class IdempotencyModule {}
