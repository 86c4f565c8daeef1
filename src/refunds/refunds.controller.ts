import {
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  StreamableFile,
} from '@nestjs/common';
import { ApiBody, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';

import {
  AdminAuth,
  AppAuth,
  AppScoped,
  assertInScope,
  CurrentAdmin,
  CurrentApp,
  scopedAppIds,
} from '../auth/decorators';
import { ApiCsvExport, CSV_EXPORT_LIMIT, csvExport, WantsCsv } from '../common/http/csv';
import { Page } from '../common/http/envelope';
import { ParseIdPipe } from '../common/http/parse-id.pipe';
import type { AdminPrincipal, AppPrincipal } from '../common/http/request-context';
import { ApiEnvelope, ApiErrors } from '../common/http/swagger';
import { Idempotent } from '../idempotency/idempotency.interceptor';
import {
  AdminRefundListQuery,
  CompleteManualRefundDto,
  CreateRefundDto,
  RefundDto,
  RefundListQuery,
} from './dto/refund.dto';
import { toRefundDto } from './refund.mapper';
import { REFUND_CSV_COLUMNS } from './refund-csv';
import { type RefundListFilter, RefundListsService } from './refund-lists.service';
import { RefundsService } from './refunds.service';

const id = (what: string) => ({
  name: 'id',
  schema: { type: 'integer' as const, minimum: 1 },
  description: what,
});

@ApiTags('Refunds')
@Controller('api/v1')
@AppAuth()
export class RefundsController {
  constructor(
    private readonly refunds: RefundsService,
    private readonly lists: RefundListsService,
  ) {}

  @Get('refunds')
  @ApiOperation({
    summary: "List refunds of the key's mode, newest first",
    description:
      'Filters: status, awaitingApproval; `from`/`to` select by creation day in Asia/Dhaka; `q` searches.',
  })
  @ApiEnvelope(RefundDto, { isArray: true })
  @ApiCsvExport(REFUND_CSV_COLUMNS)
  async list(
    @CurrentApp() app: AppPrincipal,
    @Query() query: RefundListQuery,
    @WantsCsv() csv: boolean,
  ): Promise<Page<RefundDto> | StreamableFile> {
    // The partition is the key's (or the acting admin's X-App-Id and X-Mode), never the query's.
    return listOrExport(this.lists, query, csv, {
      ...query,
      applicationId: app.appId,
      mode: app.mode,
    });
  }

  @Post('payments/:id/refunds')
  @Idempotent({ recoveryPoints: true })
  @ApiOperation({
    summary: 'Refund all or part of a succeeded payment',
    description:
      "Default amount: all that is still refundable. 409 INVALID_STATE unless the payment SUCCEEDED; 422 AMOUNT_OUT_OF_RANGE beyond what is left (refunds that did not fail never exceed the capture). Above the app's refundApprovalThresholdMinor the refund stays PENDING (approvalRequired) until an operator approves it. The sandbox refunds at once.",
  })
  @ApiParam(id('The payment'))
  @ApiEnvelope(RefundDto, { status: 201 })
  @ApiErrors(404, 409, 422)
  async create(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) paymentId: number,
    @Body() body: CreateRefundDto,
  ): Promise<RefundDto> {
    return toRefundDto(await this.refunds.create(app, paymentId, body));
  }

  @Get('payments/:id/refunds')
  @ApiOperation({ summary: "A payment's refunds, oldest first" })
  @ApiParam(id('The payment'))
  @ApiEnvelope(RefundDto, { isArray: true })
  @ApiErrors(404)
  async ofPayment(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) paymentId: number,
  ): Promise<Page<RefundDto>> {
    const items = (await this.refunds.ofPayment(app, paymentId)).map(toRefundDto);
    return Page.all(items);
  }

  @Get('refunds/:id')
  @ApiOperation({ summary: 'One refund' })
  @ApiParam(id('The refund'))
  @ApiEnvelope(RefundDto)
  @ApiErrors(404)
  async get(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) refundId: number,
  ): Promise<RefundDto> {
    return toRefundDto(await this.refunds.get(app, refundId));
  }
}

@ApiTags('Admin refunds')
@Controller('api/v1/admin/refunds')
export class AdminRefundsController {
  constructor(
    private readonly refunds: RefundsService,
    private readonly lists: RefundListsService,
  ) {}

  @Get()
  @AdminAuth('invoices:read')
  @AppScoped()
  @ApiOperation({
    summary: 'Refunds across apps and modes (filters: status, applicationId, mode)',
    description:
      '`from`/`to` select by creation time (Asia/Dhaka days, or instants); `q` searches as on GET /api/v1/refunds.',
  })
  @ApiEnvelope(RefundDto, { isArray: true })
  @ApiCsvExport(REFUND_CSV_COLUMNS)
  @ApiErrors(400)
  async list(
    @Query() query: AdminRefundListQuery,
    @CurrentAdmin() admin: AdminPrincipal,
    @WantsCsv() csv: boolean,
  ): Promise<Page<RefundDto> | StreamableFile> {
    return listOrExport(this.lists, query, csv, {
      ...query,
      appIds: scopedAppIds(admin, query.applicationId),
    });
  }

  @Post(':id/approve')
  @HttpCode(200)
  @AdminAuth('refunds:approve')
  @AppScoped()
  @ApiOperation({
    summary: 'Approve a refund that waits for approval: it is sent to the gateway',
    description:
      '409 unless it is PENDING, approvalRequired and not yet approved. A manual refund (its gateway has no refund call) is not sent: it stays PENDING for an operator to pay back and complete.',
  })
  @ApiParam(id('The refund'))
  @ApiEnvelope(RefundDto)
  @ApiErrors(404, 409)
  async approve(
    @Param('id', ParseIdPipe) refundId: number,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<RefundDto> {
    if (admin.appIds) assertInScope(admin, await this.refunds.appOf(refundId), 'Refund');
    return toRefundDto(await this.refunds.approve(refundId));
  }

  @Post(':id/reject')
  @HttpCode(200)
  @AdminAuth('refunds:approve')
  @AppScoped()
  @ApiOperation({
    summary: 'Reject a refund that waits for approval: FAILED, nothing is sent',
    description: '409 unless it is PENDING, approvalRequired and not yet approved.',
  })
  @ApiParam(id('The refund'))
  @ApiEnvelope(RefundDto)
  @ApiErrors(404, 409)
  async reject(
    @Param('id', ParseIdPipe) refundId: number,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<RefundDto> {
    if (admin.appIds) assertInScope(admin, await this.refunds.appOf(refundId), 'Refund');
    return toRefundDto(await this.refunds.reject(refundId));
  }

  @Post(':id/complete')
  @HttpCode(200)
  @AdminAuth('refunds:approve')
  @AppScoped()
  @ApiOperation({
    summary: 'Complete a manual refund the operator paid back outside Joma: SUCCEEDED',
    description:
      "For a refund whose gateway has no refund call (`manual: true`, e.g. Nagad): once the customer has been paid back outside Joma, this marks it SUCCEEDED the way a gateway's answer would (ledger postings, `refund.succeeded` event and webhook, the payment's amountRefundedMinor), audited as `refund.completed`. `gatewayRefundId` (optional) is the reference the operator got for the money sent back; `note` (optional) goes to the audit log only. 409 INVALID_STATE unless the refund is PENDING, manual and not awaiting approval (a second completion is 409).",
  })
  @ApiParam(id('The refund'))
  @ApiBody({ type: CompleteManualRefundDto, required: false })
  @ApiEnvelope(RefundDto)
  @ApiErrors(404, 409)
  async complete(
    @Param('id', ParseIdPipe) refundId: number,
    @Body() body: CompleteManualRefundDto,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<RefundDto> {
    if (admin.appIds) assertInScope(admin, await this.refunds.appOf(refundId), 'Refund');
    return toRefundDto(await this.refunds.completeManual(refundId, body ?? {}));
  }

  @Post(':id/check')
  @HttpCode(200)
  @AdminAuth('refunds:approve')
  @AppScoped()
  @ApiOperation({
    summary: 'Ask the gateway about a PENDING refund now',
    description:
      "Instead of waiting for the re-check's next turn (a minute at first, then longer as the refund ages): the gateway is asked what became of the refund (sent again only if it has no such refund), or a refund free to go that was never sent is sent. Never a second trip beside one already under way. Returns the refund as it then stands. 409 unless PENDING and not awaiting approval; 409 for a manual refund (its gateway has no refund call: complete it instead).",
  })
  @ApiParam(id('The refund'))
  @ApiEnvelope(RefundDto)
  @ApiErrors(404, 409)
  async check(
    @Param('id', ParseIdPipe) refundId: number,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<RefundDto> {
    if (admin.appIds) assertInScope(admin, await this.refunds.appOf(refundId), 'Refund');
    return toRefundDto(await this.refunds.checkNow(refundId));
  }
}

/** A page of the refund list, or (`Accept: text/csv`) every refund it selects as a file. */
async function listOrExport(
  lists: RefundListsService,
  query: RefundListQuery | AdminRefundListQuery,
  csv: boolean,
  filter: RefundListFilter,
): Promise<Page<RefundDto> | StreamableFile> {
  if (csv) {
    const { count, batches } = await lists.exportOf(filter, CSV_EXPORT_LIMIT);
    return csvExport({ filename: 'refunds.csv', columns: REFUND_CSV_COLUMNS, count, batches });
  }
  const page = await lists.list(query, filter);
  return new Page(page.items.map(toRefundDto), page.pagination);
}
