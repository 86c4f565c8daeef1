import { Module } from '@nestjs/common';

import { AuditModule } from '../audit';
import { AuthModule } from '../auth';
import { GatewaysModule } from '../gateways';
import { LedgerModule } from '../ledger';
import { PaymentsModule } from '../payments';
import { NightlyReconciliationJob } from './nightly-reconciliation.job';
import { ReconciliationController } from './reconciliation.controller';
import { ReconciliationRepository } from './reconciliation.repository';
import { ReconciliationService } from './reconciliation.service';
import { SettlementsRepository } from './settlements.repository';
import { SettlementsService } from './settlements.service';

/** Settlement import and daily reconciliation against the ledger. */
@Module({
  imports: [AuditModule, AuthModule, GatewaysModule, LedgerModule, PaymentsModule],
  controllers: [ReconciliationController],
  providers: [
    SettlementsRepository,
    SettlementsService,
    ReconciliationRepository,
    ReconciliationService,
    NightlyReconciliationJob,
  ],
  exports: [ReconciliationService, SettlementsService, NightlyReconciliationJob],
})
export class ReconciliationModule {}
