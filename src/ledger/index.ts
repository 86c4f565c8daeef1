/** The ledger feature's public door. */
export { LedgerModule } from './ledger.module';
export { type LedgerBalance, LedgerService } from './ledger.service';
export { LEDGER_ACCOUNTS, type LedgerAccount, postingsFor } from './ledger-postings';
