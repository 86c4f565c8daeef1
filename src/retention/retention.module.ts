import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { WebhooksModule } from '../webhooks/webhooks.module';
import { RetentionJob } from './retention.job';

/** Scheduled pruning of what grows without bound (see RetentionJob). */
@Module({
  imports: [AuthModule, WebhooksModule],
  providers: [RetentionJob],
  exports: [RetentionJob],
})
export class RetentionModule {}
