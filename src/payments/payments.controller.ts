import { Controller, Get, HttpCode, Param, Post, Query, StreamableFile } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';

import {
  AdminAuth,
  AppAuth,
  AppScoped,
  CurrentAdmin,
  CurrentApp,
  scopedAppIds,
} from '../auth/decorators';
import { ApiCsvExport, CSV_EXPORT_LIMIT, csvExport, WantsCsv } from '../common/http/csv';
import { Page } from '../common/http/envelope';
import { PageQueryDto } from '../common/http/pagination';
import { ParseIdPipe } from '../common/http/parse-id.pipe';
import type { AdminPrincipal, AppPrincipal } from '../common/http/request-context';
import { ApiEnvelope, ApiErrors } from '../common/http/swagger';
import {
  AdminPaymentQuery,
  PAYMENT_SORT_FIELDS,
  PaymentDto,
  PaymentListQuery,
} from './dto/payment.dto';
import { toPaymentDto } from './payment.mapper';
import { PAYMENT_CSV_COLUMNS } from './payment-csv';
import { PaymentsService } from './payments.service';

/** Payments of the key's mode. (Creating one is billing's: it may pay an invoice.) */
@ApiTags('Payments')
@Controller('api/v1/payments')
@AppAuth()
export class PaymentsController {
  constructor(private readonly payments: PaymentsService) {}

  @Get()
  @ApiOperation({
    summary: "List payments of the key's mode",
    description: '`from`/`to` select by creation day in Asia/Dhaka; `q` searches.',
  })
  @ApiEnvelope(PaymentDto, { isArray: true })
  @ApiCsvExport(PAYMENT_CSV_COLUMNS)
  async list(
    @CurrentApp() app: AppPrincipal,
    @Query() query: PaymentListQuery,
    @WantsCsv() csv: boolean,
  ): Promise<Page<PaymentDto> | StreamableFile> {
    const filter = { status: query.status, from: query.from, to: query.to, q: query.q };
    if (csv) {
      const { count, batches } = await this.payments.exportOf(app, filter, CSV_EXPORT_LIMIT);
      return csvExport({ filename: 'payments.csv', columns: PAYMENT_CSV_COLUMNS, count, batches });
    }
    const page = await this.payments.list(app, query, filter);
    return new Page(page.items.map(toPaymentDto), page.pagination);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a payment' })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiEnvelope(PaymentDto)
  @ApiErrors(404)
  async get(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) id: number,
  ): Promise<PaymentDto> {
    return toPaymentDto(await this.payments.get(app, id));
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Cancel a PENDING payment (409 INVALID_STATE otherwise; cancelling twice is a no-op)',
    description:
      'The gateway is asked about the checkout first: a capture it already made is recorded, and the cancel then answers 409 INVALID_STATE with the payment SUCCEEDED. A checkout the gateway does not confirm closed is asked about for 72 hours; a capture found then revives the payment (payment.succeeded after payment.cancelled).',
  })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiEnvelope(PaymentDto)
  @ApiErrors(404, 409)
  async cancel(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) id: number,
  ): Promise<PaymentDto> {
    return toPaymentDto(await this.payments.cancel(app, id));
  }
}

export class CustomerPaymentsQuery extends PageQueryDto(PAYMENT_SORT_FIELDS) {}

@ApiTags('Customers')
@Controller('api/v1/customers')
@AppAuth()
export class CustomerPaymentsController {
  constructor(private readonly payments: PaymentsService) {}

  @Get(':externalId/payments')
  @ApiOperation({ summary: "A customer's payments (by the app's customerReference)" })
  @ApiParam({
    name: 'externalId',
    description: 'The customerReference the app uses',
    example: 'cust_42',
  })
  @ApiEnvelope(PaymentDto, { isArray: true })
  @ApiErrors(404)
  async list(
    @CurrentApp() app: AppPrincipal,
    @Param('externalId') externalId: string,
    @Query() query: CustomerPaymentsQuery,
  ): Promise<Page<PaymentDto>> {
    const page = await this.payments.listForCustomer(app, externalId, query);
    return new Page(page.items.map(toPaymentDto), page.pagination);
  }
}

@ApiTags('Admin payments')
@Controller('api/v1/admin/payments')
export class AdminPaymentsController {
  constructor(private readonly payments: PaymentsService) {}

  @Get()
  @AdminAuth('invoices:read')
  @AppScoped()
  @ApiOperation({
    summary: 'Search payments across apps and modes',
    description:
      'excess=true lists captures that brought more than their invoice needed (excessMinor > 0): money to refund. `from`/`to` select by creation time (Asia/Dhaka days, or instants); `q` searches as on GET /api/v1/payments.',
  })
  @ApiEnvelope(PaymentDto, { isArray: true })
  @ApiCsvExport(PAYMENT_CSV_COLUMNS)
  async search(
    @Query() query: AdminPaymentQuery,
    @CurrentAdmin() admin: AdminPrincipal,
    @WantsCsv() csv: boolean,
  ): Promise<Page<PaymentDto> | StreamableFile> {
    const search = { ...query, appIds: scopedAppIds(admin, query.applicationId) };
    if (csv) {
      const { count, batches } = await this.payments.adminExportOf(search, CSV_EXPORT_LIMIT);
      return csvExport({ filename: 'payments.csv', columns: PAYMENT_CSV_COLUMNS, count, batches });
    }
    const page = await this.payments.adminSearch(search);
    return new Page(page.items.map(toPaymentDto), page.pagination);
  }
}
