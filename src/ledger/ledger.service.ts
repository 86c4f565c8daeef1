import { Injectable } from '@nestjs/common';

import type { Mode } from '../common/http/request-context';
import type { TenantScope } from '../database/tenant';
import { AccountBalance, LedgerRepository } from './ledger.repository';
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

  /** One row per account (every account, zeros included); the rows sum to 0. */
  async balances(
    filter: { appId?: number; mode?: Mode; appIds?: number[] } = {},
  ): Promise<LedgerBalance[]> {
    const found = new Map((await this.ledger.balances(filter)).map((b) => [b.account, b]));
    return LEDGER_ACCOUNTS.map((account) => {
      const b = found.get(account) ?? { account, debitMinor: 0, creditMinor: 0 };
      return { ...b, balanceMinor: b.debitMinor - b.creditMinor };
    });
  }

  /** Every transaction balances and debits equal credits overall. */
  async isBalanced(filter: { appId?: number; mode?: Mode } = {}): Promise<boolean> {
    if ((await this.ledger.unbalancedTransactions(filter)).length > 0) return false;
    const rows = await this.balances(filter);
    return rows.reduce((sum, r) => sum + r.balanceMinor, 0) === 0;
  }
}
