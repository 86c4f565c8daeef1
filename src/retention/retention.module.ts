import { Module } from '@nestjs/common';

import { AuthModule } from '../auth';
import { WebhooksModule } from '../webhooks';
import { RetentionJob } from './retention.job';

/** Scheduled pruning of what grows without bound (see RetentionJob). */
@Module({
  imports: [AuthModule, WebhooksModule],
  providers: [RetentionJob],
  exports: [RetentionJob],
})
export class RetentionModule {}
