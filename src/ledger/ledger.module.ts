import { Module } from '@nestjs/common';

import { AuthModule } from '../auth';
import { PaymentsModule } from '../payments';
import { DailyCollectionsController } from './daily-collections.controller';
import { DailyCollectionsService } from './daily-collections.service';
import { LedgerController } from './ledger.controller';
import { LedgerRepository } from './ledger.repository';
import { LedgerService } from './ledger.service';
import { LedgerPostingsSubscriber } from './ledger-postings.subscriber';

/**
 * The append-only double-entry ledger: postings of every money movement,
 * balances, and the daily report of collected, refunded and net.
 */
@Module({
  imports: [AuthModule, PaymentsModule],
  controllers: [LedgerController, DailyCollectionsController],
  providers: [LedgerRepository, LedgerService, LedgerPostingsSubscriber, DailyCollectionsService],
  exports: [LedgerService, DailyCollectionsService],
})
export class LedgerModule {}
