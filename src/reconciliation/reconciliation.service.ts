import { Injectable, Logger } from '@nestjs/common';
import { Transactional } from '@nestjs-cls/transactional';

import { AuditService } from '../audit';
import { Clock } from '../common/clock/clock';
import { dhakaDate } from '../common/clock/dhaka-calendar';
import { AppError } from '../common/errors/app-error';
import { Page, type PaginationMeta } from '../common/http/envelope';
import { decodeKeyset, encodeKeyset, paginationMeta } from '../common/http/pagination';
import type { Mode } from '../common/http/request-context';
import { isForeignKeyViolation } from '../database/transaction';
import { LedgerService } from '../ledger';
import {
  EXCEPTION_ORDER,
  ExceptionClass,
  ItemRow,
  ReconciliationRepository,
  RunRow,
} from './reconciliation.repository';
import { SettlementsService } from './settlements.service';

const HOUR_MS = 3600_000;
/** Captures in the period's last two hours may settle in the next day's file. */
export const DEFER_WINDOW_MS = 2 * HOUR_MS;

/** A period is one calendar day in Asia/Dhaka (UTC+06:00, no daylight saving). */
export function periodWindow(period: string): { start: Date; end: Date; deferFrom: Date } {
  const start = new Date(`${period}T00:00:00+06:00`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(period) || Number.isNaN(start.getTime()))
    throw AppError.validation('period', 'period must be a date (YYYY-MM-DD)');
  const end = new Date(start.getTime() + 24 * HOUR_MS);
  return { start, end, deferFrom: new Date(end.getTime() - DEFER_WINDOW_MS) };
}

function withCursor<T>(rows: T[], meta: PaginationMeta, nextCursor?: string): Page<T> {
  return new Page(rows, nextCursor ? { ...meta, nextCursor } : meta);
}

/** The Dhaka day before the instant `ms`. */
export function previousDhakaDay(ms: number): string {
  return dhakaDate(ms - 24 * HOUR_MS);
}

/**
 * Daily reconciliation: every capture and settlement line of a Dhaka day,
 * classified once in one set-based statement (matched, amountMismatch,
 * missingInternal, missingInSettlement, deferred), the ledger's balance
 * checked, the run and its exceptions stored. Runs may be repeated: each
 * makes a new run.
 */
@Injectable()
export class ReconciliationService {
  private readonly logger = new Logger('Reconciliation');

  constructor(
    private readonly runs: ReconciliationRepository,
    private readonly settlements: SettlementsService,
    private readonly ledger: LedgerService,
    private readonly audit: AuditService,
    private readonly clock: Clock,
  ) {}

  /** With `fetch`, gateways' own settlement reports for the day are pulled first (no transaction open). */
  async run(
    period: string,
    filter: { appId?: number; mode?: Mode },
    opts: { fetch?: boolean; trigger?: 'api' | 'nightly' } = {},
  ): Promise<RunRow> {
    const window = periodWindow(period);
    if (window.start.getTime() > this.clock.nowMs())
      throw AppError.validation('period', 'period must not be in the future');
    if (opts.fetch) await this.settlements.pullFromGateways(period, filter);
    return this.classify(period, window, filter, opts.trigger ?? 'api');
  }

  @Transactional()
  private async classify(
    period: string,
    window: { start: Date; end: Date; deferFrom: Date },
    filter: { appId?: number; mode?: Mode },
    trigger: 'api' | 'nightly',
  ): Promise<RunRow> {
    const scope = { appId: filter.appId ?? null, mode: filter.mode ?? null };
    const id = await this.runs.insertRun({ ...scope, period, trigger }).catch((err: unknown) => {
      if (isForeignKeyViolation(err)) throw AppError.notFound('App');
      throw err;
    });
    const counts = await this.runs.classify(id, window, scope);
    const balanced = await this.ledger.isBalanced({ appId: filter.appId, mode: filter.mode });
    await this.runs.finishRun(id, counts, balanced);
    const run = (await this.runs.run(id))!;
    await this.audit.record({
      action: 'reconciliation.run',
      targetType: 'reconciliation_run',
      targetId: id,
      after: {
        applicationId: scope.appId,
        mode: scope.mode,
        period,
        ...counts,
        ledgerBalanced: balanced,
      },
      adminOnly: true,
    });
    return run;
  }

  /**
   * The nightly run of the previous Dhaka day, if no replica claimed it yet.
   * A run that cannot be completed (a figure out of range, anything else
   * that fails) is recorded FAILED with the reason instead of leaving the
   * claimed period without a run; an operator re-runs it through the API.
   */
  async runNightly(): Promise<RunRow | null> {
    const period = previousDhakaDay(this.clock.nowMs());
    if (!(await this.runs.claimNightly(period))) return null;
    try {
      return await this.run(period, {}, { fetch: true, trigger: 'nightly' });
    } catch (err) {
      const reason =
        err instanceof AppError
          ? [err.message, ...(err.details ?? []).map((d) => d.message)].join('; ')
          : 'Unexpected error (see the service log)';
      this.logger.error(
        `Nightly reconciliation of ${period} failed: ${err instanceof AppError ? reason : String((err as Error)?.stack ?? err)}`,
      );
      return this.recordFailed(period, reason);
    }
  }

  /** The nightly job's FAILED run (the job acts for no admin: not audited, like its other runs). */
  @Transactional()
  private async recordFailed(period: string, reason: string): Promise<RunRow> {
    const id = await this.runs.insertFailedRun(
      { appId: null, mode: null, period, trigger: 'nightly' },
      reason,
    );
    return (await this.runs.run(id))!;
  }

  async get(id: number): Promise<RunRow> {
    const run = await this.runs.run(id);
    if (!run) throw AppError.notFound('Reconciliation run');
    return run;
  }

  /** Newest first; `cursor` (a pagination.nextCursor) pages by keyset at any depth. */
  async list(
    page: number,
    size: number,
    period?: string,
    cursor?: string,
    appIds?: number[],
  ): Promise<Page<RunRow>> {
    const after = cursor ? decodeKeyset(cursor) : undefined;
    const { rows, total } = await this.runs.runs(
      page,
      size,
      period,
      after && { us: after.first, id: after.id },
      appIds,
    );
    const shown = rows.slice(0, size);
    const last = shown[shown.length - 1];
    const next = rows.length > size ? encodeKeyset(last.cursorUs, Number(last.id)) : undefined;
    return withCursor(
      shown.map(({ cursorUs: _, ...run }) => run),
      paginationMeta(after ? 0 : page, size, total),
      next,
    );
  }

  /** A run's exceptions by class, then id; `cursor` (a pagination.nextCursor) pages by keyset. */
  async items(
    runId: number,
    page: number,
    size: number,
    cls?: ExceptionClass,
    cursor?: string,
  ): Promise<Page<ItemRow>> {
    await this.get(runId);
    const after = cursor ? decodeKeyset(cursor) : undefined;
    const afterClass = after ? EXCEPTION_ORDER[Number(after.first)] : undefined;
    if (after && !afterClass)
      throw AppError.validation(
        'cursor',
        'cursor is not one this API gave (use pagination.nextCursor as it is)',
      );
    const { rows, total } = await this.runs.items(
      runId,
      page,
      size,
      cls,
      after && { cls: afterClass!, id: after.id },
    );
    const shown = rows.slice(0, size);
    const last = shown[shown.length - 1];
    const next =
      rows.length > size
        ? encodeKeyset(EXCEPTION_ORDER.indexOf(last.class), Number(last.id))
        : undefined;
    return withCursor(shown, paginationMeta(after ? 0 : page, size, total), next);
  }
}
