import { Injectable } from '@nestjs/common';

import type { Mode } from '../common/http/request-context';
import { figuresOutOfRange, isSafeMinor, type Overflow } from '../common/money/exact-sum';
import type { TenantScope } from '../database/tenant';
import { AccountBalance, AppAccountSums, LedgerRepository } from './ledger.repository';
import { LEDGER_ACCOUNTS, LedgerKind, postingsFor } from './ledger-postings';

export interface LedgerBalance extends AccountBalance {
  /** debitMinor - creditMinor (merchant_payable is negative while money is owed to the merchant). */
  balanceMinor: number;
}

/**
 * The double-entry ledger. Posts inside the caller's transaction, so a
 * money movement and its postings commit together; posting the same
 * movement twice posts it once.
 */
@Injectable()
export class LedgerService {
  constructor(private readonly ledger: LedgerRepository) {}

  post(
    scope: TenantScope,
    kind: LedgerKind,
    sourceId: string | number,
    occurredAt: Date,
    amountMinor: number,
    feeMinor = 0,
  ): Promise<boolean> {
    return this.postMany(scope, kind, [
      { sourceId: String(sourceId), occurredAt, amountMinor, feeMinor },
    ]).then((posted) => posted > 0);
  }

  /** Many movements of one kind in one statement (a settlement file). How many were posted now. */
  async postMany(
    scope: TenantScope,
    kind: LedgerKind,
    items: { sourceId: string; occurredAt: Date; amountMinor: number; feeMinor?: number }[],
  ): Promise<number> {
    const posted = await this.ledger.insertMany(
      scope,
      kind,
      items.map((i) => ({
        sourceId: i.sourceId,
        occurredAt: i.occurredAt,
        postings: postingsFor(kind, i.amountMinor, i.feeMinor ?? 0),
      })),
    );
    return posted.length;
  }

  /**
   * One row per account (every account, zeros included); the rows sum to 0.
   * Sums are exact (NUMERIC in PostgreSQL, BigInt here). A figure that does
   * not fit a JSON number exactly is 422 AMOUNT_OUT_OF_RANGE for this
   * request alone, naming the app whose own figures overflow (or, when only
   * a total over several apps does, the apps that make it up, largest
   * first); a request that leaves that app out is answered as usual.
   */
  async balances(
    filter: { appId?: number; mode?: Mode; appIds?: number[] } = {},
  ): Promise<LedgerBalance[]> {
    const rows = await this.ledger.balancesByApp(filter);
    const totals = new Map<string, { debit: bigint; credit: bigint }>();
    const overflows: Overflow[] = [];
    for (const r of rows) {
      for (const [figure, value] of [
        ['debitMinor', r.debit],
        ['creditMinor', r.credit],
        ['balanceMinor', r.debit - r.credit],
      ] as const)
        if (!isSafeMinor(value))
          overflows.push({ appId: r.appId, figure: `${r.account} ${figure}`, value });
      const t = totals.get(r.account) ?? { debit: 0n, credit: 0n };
      totals.set(r.account, { debit: t.debit + r.debit, credit: t.credit + r.credit });
    }
    if (overflows.length > 0) throw figuresOutOfRange('Ledger sums', overflows);
    for (const [account, t] of totals) {
      for (const [figure, value, of] of [
        ['debitMinor', t.debit, (r: AppAccountSums) => r.debit],
        ['creditMinor', t.credit, (r: AppAccountSums) => r.credit],
        ['balanceMinor', t.debit - t.credit, (r: AppAccountSums) => r.debit - r.credit],
      ] as const) {
        if (isSafeMinor(value)) continue;
        // No app's own figure overflows, their total does: name the apps in it, largest first.
        const parts = rows
          .filter((r) => r.account === account && of(r) !== 0n)
          .sort((a, b) => (abs(of(b)) > abs(of(a)) ? 1 : abs(of(b)) < abs(of(a)) ? -1 : 0));
        throw figuresOutOfRange(
          'Ledger sums',
          parts.map((r) => ({ appId: r.appId, figure: `${account} ${figure} (all apps)`, value })),
        );
      }
    }
    return LEDGER_ACCOUNTS.map((account) => {
      const t = totals.get(account) ?? { debit: 0n, credit: 0n };
      return {
        account,
        debitMinor: Number(t.debit),
        creditMinor: Number(t.credit),
        balanceMinor: Number(t.debit - t.credit),
      };
    });
  }

  /**
   * Every transaction balances and debits equal credits overall, compared
   * exactly in SQL: however large the sums, the answer is a boolean.
   */
  async isBalanced(filter: { appId?: number; mode?: Mode } = {}): Promise<boolean> {
    if ((await this.ledger.unbalancedTransactions(filter)).length > 0) return false;
    return this.ledger.debitsEqualCredits(filter);
  }
}

function abs(v: bigint): bigint {
  return v < 0n ? -v : v;
}
