import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';

import {
  AdminAuth,
  AppAuth,
  AppScoped,
  assertInScope,
  CurrentAdmin,
  CurrentApp,
  scopedAppIds,
} from '../auth/decorators';
import { Page } from '../common/http/envelope';
import { ParseIdPipe } from '../common/http/parse-id.pipe';
import type { AdminPrincipal, AppPrincipal } from '../common/http/request-context';
import { ApiEnvelope, ApiErrors } from '../common/http/swagger';
import { Idempotent } from '../idempotency/idempotency.interceptor';
import { AdminRefundListQuery, CreateRefundDto, RefundDto } from './dto/refund.dto';
import { toRefundDto } from './refund.mapper';
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
  constructor(private readonly refunds: RefundsService) {}

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
  constructor(private readonly refunds: RefundsService) {}

  @Get()
  @AdminAuth('invoices:read')
  @AppScoped()
  @ApiOperation({ summary: 'Refunds across apps and modes (filters: status, applicationId, mode)' })
  @ApiEnvelope(RefundDto, { isArray: true })
  @ApiErrors(400)
  async list(
    @Query() query: AdminRefundListQuery,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<Page<RefundDto>> {
    const page = await this.refunds.adminList(query, {
      ...query,
      appIds: scopedAppIds(admin, query.applicationId),
    });
    return new Page(page.items.map(toRefundDto), page.pagination);
  }

  @Post(':id/approve')
  @HttpCode(200)
  @AdminAuth('refunds:approve')
  @AppScoped()
  @ApiOperation({
    summary: 'Approve a refund that waits for approval: it is sent to the gateway',
    description: '409 unless it is PENDING, approvalRequired and not yet approved.',
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

  @Post(':id/check')
  @HttpCode(200)
  @AdminAuth('refunds:approve')
  @AppScoped()
  @ApiOperation({
    summary: 'Ask the gateway about a PENDING refund now',
    description:
      "Instead of waiting for the re-check's next turn (a minute at first, then longer as the refund ages): the gateway is asked what became of the refund (sent again only if it has no such refund), or a refund free to go that was never sent is sent. Never a second trip beside one already under way. Returns the refund as it then stands. 409 unless PENDING and not awaiting approval.",
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
