/** The ledger feature's public door. */
export { LedgerModule } from './ledger.module';
export { LedgerService, type LedgerBalance } from './ledger.service';
export { LEDGER_ACCOUNTS, type LedgerAccount, postingsFor } from './ledger-postings';
