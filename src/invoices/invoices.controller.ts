import {
  Body,
  Controller,
  Get,
  HttpCode,
  Param,
  Post,
  Put,
  Query,
  StreamableFile,
} from '@nestjs/common';
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
import { ParseIdPipe } from '../common/http/parse-id.pipe';
import type { AdminPrincipal, AppPrincipal } from '../common/http/request-context';
import { ApiEnvelope, ApiErrors } from '../common/http/swagger';
import { Idempotent } from '../idempotency/idempotency.interceptor';
import { AdminInvoiceSearchService } from './admin-invoice-search.service';
import {
  AdminInvoiceQuery,
  CreateInvoiceDto,
  InvoiceDto,
  InvoiceListItemDto,
  InvoiceListQuery,
  InvoiceSummaryDto,
  InvoiceTemplateDto,
  InvoiceTemplateInput,
} from './dto/invoice.dto';
import {
  toInvoiceDto,
  toInvoiceListItemDto,
  toInvoiceSummaryDto,
  toTemplateDto,
} from './invoice.mapper';
import { INVOICE_CSV_COLUMNS } from './invoice-csv';
import { InvoiceTemplatesService } from './invoice-templates.service';
import { InvoicesService } from './invoices.service';

@ApiTags('Invoices')
@Controller('api/v1/invoices')
@AppAuth()
export class InvoicesController {
  constructor(
    private readonly invoices: InvoicesService,
    private readonly templates: InvoiceTemplatesService,
  ) {}

  @Post()
  @Idempotent()
  @ApiOperation({
    summary: 'Issue an invoice; totals are computed by Joma; share payableUrl with the customer',
    description: 'Numbers are INV-000001 style, gapless per app and mode. Emits invoice.issued.',
  })
  @ApiEnvelope(InvoiceDto, { status: 201 })
  async create(
    @CurrentApp() app: AppPrincipal,
    @Body() body: CreateInvoiceDto,
  ): Promise<InvoiceDto> {
    return toInvoiceDto(await this.invoices.create(app, body));
  }

  @Get('template')
  @ApiOperation({ summary: "The invoice template of the key's mode (all fields null until set)" })
  @ApiEnvelope(InvoiceTemplateDto)
  async getTemplate(@CurrentApp() app: AppPrincipal): Promise<InvoiceTemplateDto> {
    return toTemplateDto(await this.templates.get(app));
  }

  @Put('template')
  @ApiOperation({
    summary:
      "Replace the invoice template of the key's mode (fields left out become empty); LIVE pay pages use the LIVE template",
  })
  @ApiEnvelope(InvoiceTemplateDto)
  async putTemplate(
    @CurrentApp() app: AppPrincipal,
    @Body() body: InvoiceTemplateInput,
  ): Promise<InvoiceTemplateDto> {
    return toTemplateDto(await this.templates.put(app, body));
  }

  @Get()
  @ApiOperation({
    summary: "List invoices of the key's mode",
    description:
      'Items leave out lineItems and payments; read one invoice (GET /api/v1/invoices/{id}) for them. `from`/`to` select by creation day in Asia/Dhaka; `q` searches.',
  })
  @ApiEnvelope(InvoiceListItemDto, { isArray: true })
  @ApiCsvExport(INVOICE_CSV_COLUMNS)
  async list(
    @CurrentApp() app: AppPrincipal,
    @Query() query: InvoiceListQuery,
    @WantsCsv() csv: boolean,
  ): Promise<Page<InvoiceListItemDto> | StreamableFile> {
    const filter = {
      status: query.status,
      customerReference: query.customerReference,
      subscriptionId: query.subscriptionId,
      from: query.from,
      to: query.to,
      q: query.q,
    };
    if (csv) {
      const { count, batches } = await this.invoices.exportOf(app, filter, CSV_EXPORT_LIMIT);
      return csvExport({ filename: 'invoices.csv', columns: INVOICE_CSV_COLUMNS, count, batches });
    }
    const page = await this.invoices.list(app, query, filter);
    return new Page(page.items.map(toInvoiceListItemDto), page.pagination);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get an invoice with its lines and payments' })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiEnvelope(InvoiceDto)
  @ApiErrors(404)
  async get(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) id: number,
  ): Promise<InvoiceDto> {
    return toInvoiceDto(await this.invoices.get(app, id));
  }

  @Post(':id/void')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Void an ISSUED invoice with nothing paid; open payments are cancelled. Emits invoice.voided.',
    description:
      "The open payments' gateways are asked first: a capture they already made is recorded and counted, and the void then answers as the invoice now stands (409 INVALID_STATE once it is paid). A capture that arrives after the void is excess, refunded by itself.",
  })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiEnvelope(InvoiceDto)
  @ApiErrors(404, 409)
  async void(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) id: number,
  ): Promise<InvoiceDto> {
    return toInvoiceDto(await this.invoices.void(app, id));
  }
}

@ApiTags('Admin invoices')
@Controller('api/v1/admin/invoices')
export class AdminInvoicesController {
  constructor(private readonly search: AdminInvoiceSearchService) {}

  @Get()
  @AdminAuth('invoices:read')
  @AppScoped()
  @ApiOperation({
    summary: 'Search invoices across apps and modes',
    description:
      '`from`/`to` select by creation time (Asia/Dhaka days, or instants); `q` searches as on GET /api/v1/invoices.',
  })
  @ApiEnvelope(InvoiceSummaryDto, { isArray: true })
  @ApiCsvExport(INVOICE_CSV_COLUMNS)
  async list(
    @Query() query: AdminInvoiceQuery,
    @CurrentAdmin() admin: AdminPrincipal,
    @WantsCsv() csv: boolean,
  ): Promise<Page<InvoiceSummaryDto> | StreamableFile> {
    const search = { ...query, appIds: scopedAppIds(admin, query.applicationId) };
    if (csv) {
      const { count, batches } = await this.search.exportOf(search, CSV_EXPORT_LIMIT);
      return csvExport({ filename: 'invoices.csv', columns: INVOICE_CSV_COLUMNS, count, batches });
    }
    const page = await this.search.search(search);
    return new Page(page.items.map(toInvoiceSummaryDto), page.pagination);
  }
}
