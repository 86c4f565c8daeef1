import type { Pool } from 'pg';

import { ledgerViolations } from './money-invariants';

/**
 * The books balance: every ledger transaction's debits equal its credits,
 * and per app and mode the accounts sum to zero (the SQL is in
 * money-invariants.ts). Money tests call it after each test (afterEach),
 * not once at the end.
 */
export async function expectBalancedLedger(db: Pool): Promise<void> {
  const v = await ledgerViolations(db);
  expect(v.unbalancedTransactions).toEqual([]);
  expect(v.unbalancedPartitions).toEqual([]);
  expect(v.emptyTransactions).toEqual([]);
}

/** Balance (debit - credit) of each account of one app and mode. */
export async function accountBalances(
  db: Pool,
  appId: number,
  mode: 'TEST' | 'LIVE' = 'TEST',
): Promise<Record<string, number>> {
  const rows = await db.query(
    `SELECT account, (sum(debit_minor) - sum(credit_minor))::bigint AS balance
       FROM ledger_entries WHERE app_id = $1 AND mode = $2 GROUP BY account`,
    [appId, mode],
  );
  return Object.fromEntries(rows.rows.map((r) => [r.account, Number(r.balance)]));
}
