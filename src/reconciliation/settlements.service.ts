import { Injectable, Logger } from '@nestjs/common';
import { Transactional } from '@nestjs-cls/transactional';

import { AuditService } from '../audit';
import { AppError } from '../common/errors/app-error';
import type { Mode } from '../common/http/request-context';
import type { TenantScope } from '../database/tenant';
import { isForeignKeyViolation } from '../database/transaction';
import { GatewayRegistry } from '../gateways';
import { LedgerService } from '../ledger';
import { PaymentsService } from '../payments';
import { parseSettlementCsv, Rejection, SettlementCsvLine } from './settlement-csv';
import { SettlementsRepository } from './settlements.repository';

/** Lines per statement. */
const IMPORT_CHUNK = 10_000;

/**
 * The most an app's settled total (every line's amount, per app and mode)
 * may reach: 10^15 minor units. An import that would take it further is
 * refused whole (400 VALIDATION_FAILED), so the sums the ledger and the
 * reconciliation views answer stay far inside 2^53 (decisions section 14).
 */
export const MAX_SETTLED_TOTAL_MINOR = 1_000_000_000_000_000;

export interface ImportResult {
  importId: number;
  lines: number;
  imported: number;
  duplicates: number;
  rejected: Rejection[];
}

/**
 * Settlement lines: what a gateway says it captured (and paid out, less its
 * fee). Imported from the gateway's CSV or pulled from adapters that offer
 * settlement reports. Each new line posts its settlement to the ledger in
 * the same transaction; a line already imported is skipped, not doubled.
 */
@Injectable()
export class SettlementsService {
  private readonly logger = new Logger('Settlements');

  constructor(
    private readonly settlements: SettlementsRepository,
    private readonly ledger: LedgerService,
    private readonly gateways: GatewayRegistry,
    private readonly payments: PaymentsService,
    private readonly audit: AuditService,
  ) {}

  /** A settlement CSV of one app, mode and gateway: good lines in, bad ones reported by line. */
  async importCsv(scope: TenantScope, gateway: string, csv: string): Promise<ImportResult> {
    if (!this.gateways.has(gateway))
      throw AppError.validation(
        'gateway',
        `Unknown gateway ${gateway}; known: ${this.gateways.names().join(', ')}`,
      );
    const parsed = await parseSettlementCsv(csv);
    if (parsed.repeatedColumns.length)
      throw AppError.validation(
        'csv',
        `The header row names ${parsed.repeatedColumns.join(', ')} more than once (line 1); which value is meant cannot be told, so nothing was imported`,
      );
    const served = this.gateways.get(gateway).modes;
    if (!served.includes(scope.mode)) {
      // The sandbox moves no money: its lines never enter LIVE books (decisions section 11).
      const numbers = [...parsed.good, ...parsed.rejected]
        .map((l) => l.line)
        .filter((n) => n > 1)
        .sort((a, b) => a - b);
      const named =
        numbers.length > 20
          ? `${numbers.slice(0, 20).join(', ')} and ${numbers.length - 20} more`
          : numbers.join(', ');
      throw AppError.validation(
        'gateway',
        `The ${gateway} gateway serves ${served.join(' and ')} mode only: its lines cannot enter a ${scope.mode} import${numbers.length ? ` (${numbers.length === 1 ? 'line' : 'lines'} ${named})` : ''}; nothing was imported`,
      );
    }
    return this.store(scope, gateway, 'csv', parsed.lines, parsed.good, parsed.rejected);
  }

  /**
   * Pulls the lines of the Dhaka `day` from every gateway that reports
   * settlements (no transaction open during the calls), and imports those
   * of the apps and modes asked for. How many lines were new.
   */
  async pullFromGateways(day: string, filter: { appId?: number; mode?: Mode }): Promise<number> {
    let imported = 0;
    for (const name of this.gateways.names()) {
      const gateway = this.gateways.get(name);
      if (!gateway.settlements) continue;
      let lines;
      try {
        lines = await gateway.settlements.settlementLines(day);
      } catch (err) {
        this.logger.warn(
          `${name}: settlement report for ${day} failed (${(err as Error).message})`,
        );
        continue;
      }
      const owners = await this.payments.ownersByReference(lines.map((l) => l.reference));
      const byScope = new Map<string, { scope: TenantScope; lines: SettlementCsvLine[] }>();
      for (const l of lines) {
        const p = owners.get(l.reference);
        if (!p) {
          // No payment of any app has this reference: nobody's books to put it in.
          this.logger.warn(`${name}: settlement line ${l.txnId} names no known payment; skipped`);
          continue;
        }
        if ((filter.appId && p.appId !== filter.appId) || (filter.mode && p.mode !== filter.mode))
          continue;
        if (!gateway.modes.includes(p.mode)) {
          // A sandbox line never enters LIVE books (decisions section 11).
          this.logger.warn(
            `${name}: settlement line ${l.txnId} names a ${p.mode} payment; skipped`,
          );
          continue;
        }
        const key = `${p.appId}:${p.mode}`;
        if (!byScope.has(key))
          byScope.set(key, { scope: { appId: p.appId, mode: p.mode }, lines: [] });
        byScope.get(key)!.lines.push({
          line: 0,
          gatewayTxnId: l.txnId,
          amountMinor: l.amountMinor,
          feeMinor: 0,
          currency: p.currency,
          transactionTime: l.settledAt,
          settledOn: null,
        });
      }
      for (const { scope, lines: own } of byScope.values()) {
        try {
          imported += (await this.store(scope, name, 'gateway', own.length, own, [])).imported;
        } catch (err) {
          // One app's refused lines (the settled-total bound) never stop another app's.
          if (!(err instanceof AppError)) throw err;
          this.logger.warn(
            `${name}: settlement lines of app ${scope.appId} (${scope.mode}) for ${day} refused: ${err.details?.[0]?.message ?? err.message}`,
          );
        }
      }
    }
    return imported;
  }

  @Transactional()
  private async store(
    scope: TenantScope,
    gateway: string,
    source: 'csv' | 'gateway',
    lines: number,
    good: SettlementCsvLine[],
    rejected: Rejection[],
  ): Promise<ImportResult> {
    const importId = await this.settlements
      .insertImport(scope, gateway, source, { lines, imported: 0, duplicates: 0, rejected })
      .catch((err: unknown) => {
        if (isForeignKeyViolation(err)) throw AppError.notFound('App');
        throw err;
      });
    // One import of this app and mode at a time, so the bound below holds
    // whatever runs in parallel.
    await this.settlements.lockPartition(scope);
    const before = await this.settlements.settledTotal(scope);
    let settled = before;
    // In chunks: each statement stays short (statement timeout), all in one
    // transaction. Each chunk posts one ledger transaction, the sum of its
    // lines' postings (bank = amount - fee, gateway_fees = fee, clearing =
    // amount), like a payout batch; the lines themselves stay in settlement_lines.
    let imported = 0;
    for (let i = 0; i < good.length; i += IMPORT_CHUNK) {
      const inserted = await this.settlements.insertLines(
        scope,
        gateway,
        importId,
        good.slice(i, i + IMPORT_CHUNK),
      );
      settled += BigInt(inserted.amountMinor);
      if (settled > BigInt(MAX_SETTLED_TOTAL_MINOR))
        // Thrown inside the transaction: nothing of this import stays.
        throw AppError.validation(
          'csv',
          `This import would take the settled total of app ${scope.appId} (${scope.mode}) from ${before.toString()} past ${MAX_SETTLED_TOTAL_MINOR} minor units (10^15); nothing was imported`,
        );
      if (inserted.count > 0)
        await this.ledger.post(
          scope,
          'settlement',
          `import-${importId}-${i / IMPORT_CHUNK}`,
          inserted.latest!,
          inserted.amountMinor,
          inserted.feeMinor,
        );
      imported += inserted.count;
    }
    const duplicates = good.length - imported;
    await this.settlements.setImportCounts(importId, imported, duplicates);
    await this.audit.record({
      action: 'settlement.imported',
      targetType: 'settlement_import',
      targetId: importId,
      after: {
        applicationId: scope.appId,
        mode: scope.mode,
        gateway,
        lines,
        imported,
        duplicates,
        rejected: rejected.length,
      },
      adminOnly: true,
    });
    return { importId, lines, imported, duplicates, rejected };
  }
}
