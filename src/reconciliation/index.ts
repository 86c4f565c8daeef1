/** The reconciliation feature's public door. */
export { NightlyReconciliationJob } from './nightly-reconciliation.job';
export { ReconciliationModule } from './reconciliation.module';
export { ReconciliationService } from './reconciliation.service';
export { SettlementsService } from './settlements.service';
