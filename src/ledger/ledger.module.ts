import { Module } from '@nestjs/common';

import { AuthModule } from '../auth';
import { LedgerController } from './ledger.controller';
import { LedgerRepository } from './ledger.repository';
import { LedgerService } from './ledger.service';
import { LedgerPostingsSubscriber } from './ledger-postings.subscriber';

/** The append-only double-entry ledger: postings of every money movement, balances. */
@Module({
  imports: [AuthModule],
  controllers: [LedgerController],
  providers: [LedgerRepository, LedgerService, LedgerPostingsSubscriber],
  exports: [LedgerService],
})
export class LedgerModule {}
