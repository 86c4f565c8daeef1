/** The ledger feature's public door. */
export { type DailyCollection, DailyCollectionsService } from './daily-collections.service';
export { LedgerModule } from './ledger.module';
export { type LedgerBalance, LedgerService } from './ledger.service';
export { LEDGER_ACCOUNTS, type LedgerAccount, postingsFor } from './ledger-postings';
