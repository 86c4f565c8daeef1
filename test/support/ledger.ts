import type { Pool } from 'pg';

/**
 * The books balance: every ledger transaction's debits equal its credits,
 * and per app and mode the accounts sum to zero. Money tests call it after
 * each test (afterEach), not once at the end.
 */
export async function expectBalancedLedger(db: Pool): Promise<void> {
  const unbalanced = await db.query(
    `SELECT transaction_id FROM ledger_entries GROUP BY transaction_id
      HAVING sum(debit_minor) <> sum(credit_minor) OR count(*) < 2`,
  );
  expect(unbalanced.rows).toEqual([]);
  const partitions = await db.query(
    `SELECT app_id, mode, sum(debit_minor)::bigint AS d, sum(credit_minor)::bigint AS c
       FROM ledger_entries GROUP BY app_id, mode HAVING sum(debit_minor) <> sum(credit_minor)`,
  );
  expect(partitions.rows).toEqual([]);
  const empty = await db.query(
    `SELECT t.id FROM ledger_transactions t
      WHERE NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.transaction_id = t.id)`,
  );
  expect(empty.rows).toEqual([]);
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
