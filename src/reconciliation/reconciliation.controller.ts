import { Body, Controller, Get, Param, Post, Query, UseInterceptors } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';

import {
  AdminAuth,
  AppScoped,
  assertInScope,
  CurrentAdmin,
  scopedAppIds,
} from '../auth/decorators';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { Page } from '../common/http/envelope';
import { LargeJsonBodyInterceptor } from '../common/http/large-json-body.interceptor';
import { DEFAULT_PAGE_SIZE } from '../common/http/pagination';
import { ParseIdPipe } from '../common/http/parse-id.pipe';
import type { AdminPrincipal } from '../common/http/request-context';
import { ApiEnvelope, ApiErrors } from '../common/http/swagger';
import {
  ItemListQuery,
  PartitionQuery,
  ReconciliationItemDto,
  ReconciliationRunDto,
  RunListQuery,
  RunQuery,
  SettlementImportDto,
  SettlementImportResultDto,
} from './dto/reconciliation.dto';
import type { ItemRow, RunRow } from './reconciliation.repository';
import { ReconciliationService } from './reconciliation.service';
import { SettlementsService } from './settlements.service';

function toRunDto(r: RunRow): ReconciliationRunDto {
  return {
    id: r.id,
    applicationId: r.appId === null ? null : Number(r.appId),
    mode: r.mode,
    period: r.period,
    matched: r.matched,
    missingInSettlement: r.missingInSettlement,
    missingInternal: r.missingInternal,
    amountMismatch: r.amountMismatch,
    deferred: r.deferred,
    ledgerBalanced: r.ledgerBalanced,
    status: r.status,
    failureReason: r.failureReason,
    trigger: r.trigger,
    createdAt: new Date(r.createdAt).toISOString(),
  };
}

function toItemDto(i: ItemRow): ReconciliationItemDto {
  return {
    class: i.class,
    paymentId: i.paymentId === null ? null : Number(i.paymentId),
    gateway: i.gateway,
    gatewayTxnId: i.gatewayTxnId,
    internalAmountMinor: i.internalAmountMinor === null ? null : Number(i.internalAmountMinor),
    settlementAmountMinor:
      i.settlementAmountMinor === null ? null : Number(i.settlementAmountMinor),
    applicationId: Number(i.appId),
    mode: i.mode,
  };
}

@ApiTags('Admin reconciliation')
@Controller('api/v1/admin')
export class ReconciliationController {
  constructor(
    private readonly reconciliation: ReconciliationService,
    private readonly settlements: SettlementsService,
  ) {}

  @Post('settlements/import')
  @AdminAuth('reconciliation:run')
  @AppScoped()
  // Up to 32 MiB, read only now that the session and the permission are verified.
  @UseInterceptors(LargeJsonBodyInterceptor)
  @ApiOperation({
    summary: "Import a gateway's settlement CSV for one app and mode",
    description:
      'Good lines are imported (each posts its settlement to the ledger); a line already imported (same app, mode, gateway, gateway_txn_id) is skipped as a duplicate; bad lines are listed with their line number and reason and never stop the good ones. amount_minor must be 1 to 100000000000 and fee_minor 0 to amount_minor. An import that would take the settled total of the app and mode (every line amount) past 10^15 minor units is refused whole: 400 VALIDATION_FAILED; so is a file whose header row names a column twice, and a LIVE import of a gateway that serves TEST only (the sandbox), naming its lines. Audited (`settlement.imported`).',
  })
  @ApiEnvelope(SettlementImportResultDto, { status: 201 })
  @ApiErrors(400, 404)
  async import(
    @Query() query: PartitionQuery,
    @Body() body: SettlementImportDto,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<SettlementImportResultDto> {
    assertInScope(admin, query.applicationId, 'App');
    return this.settlements.importCsv(
      { appId: query.applicationId, mode: query.mode },
      body.gateway,
      body.csv,
    );
  }

  @Post('reconciliation/runs')
  @AdminAuth('reconciliation:run')
  @AppScoped()
  @ApiOperation({
    summary: 'Reconcile one Asia/Dhaka day: every capture and settlement line, classified once',
    description:
      'matched, amountMismatch, missingInternal (a line without a captured payment), missingInSettlement (a capture without a line), deferred (a capture without a line in the last 2 hours of the day). Checks that the ledger balances (compared exactly, however large the sums). Each call makes a new run. Default: every app, both modes; an unknown applicationId is 404. Audited (`reconciliation.run`).',
  })
  @ApiEnvelope(ReconciliationRunDto, { status: 201 })
  @ApiErrors(400, 404)
  async run(
    @Query() query: RunQuery,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<ReconciliationRunDto> {
    if (admin.appIds && query.applicationId === undefined) {
      throw new AppError(
        ErrorCode.PERMISSION_DENIED,
        'Permission denied: an app-scoped user runs one app at a time (give applicationId)',
      );
    }
    assertInScope(admin, query.applicationId ?? null, 'App');
    return toRunDto(
      await this.reconciliation.run(
        query.period,
        { appId: query.applicationId, mode: query.mode },
        { fetch: query.fetch },
      ),
    );
  }

  @Get('reconciliation/runs')
  @AdminAuth('reconciliation:run')
  @AppScoped()
  @ApiOperation({ summary: 'Reconciliation runs, newest first (filter: period)' })
  @ApiEnvelope(ReconciliationRunDto, { isArray: true })
  @ApiErrors(400)
  async runs(
    @Query() query: RunListQuery,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<Page<ReconciliationRunDto>> {
    const page = await this.reconciliation.list(
      query.page ?? 0,
      query.size ?? DEFAULT_PAGE_SIZE,
      query.period,
      query.cursor,
      scopedAppIds(admin),
    );
    return new Page(page.items.map(toRunDto), page.pagination);
  }

  @Get('reconciliation/runs/:id')
  @AdminAuth('reconciliation:run')
  @AppScoped()
  @ApiOperation({ summary: 'One reconciliation run' })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiEnvelope(ReconciliationRunDto)
  @ApiErrors(404)
  async get(
    @Param('id', ParseIdPipe) id: number,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<ReconciliationRunDto> {
    return toRunDto(await this.scopedRun(admin, id));
  }

  @Get('reconciliation/runs/:id/items')
  @AdminAuth('reconciliation:run')
  @AppScoped()
  @ApiOperation({
    summary: "A run's exceptions (deferred included; matched ones are only counted)",
  })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiEnvelope(ReconciliationItemDto, { isArray: true })
  @ApiErrors(400, 404)
  async items(
    @Param('id', ParseIdPipe) id: number,
    @Query() query: ItemListQuery,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<Page<ReconciliationItemDto>> {
    await this.scopedRun(admin, id);
    const page = await this.reconciliation.items(
      id,
      query.page ?? 0,
      query.size ?? DEFAULT_PAGE_SIZE,
      query.class,
      query.cursor,
    );
    return new Page(page.items.map(toItemDto), page.pagination);
  }

  /** The run, if the user may see it: a scoped user sees only runs of one of their apps (404 otherwise). */
  private async scopedRun(admin: AdminPrincipal, id: number) {
    const run = await this.reconciliation.get(id);
    assertInScope(admin, run.appId === null ? null : Number(run.appId), 'Reconciliation run');
    return run;
  }
}
