import { Injectable } from '@nestjs/common';

import { AppsService } from '../apps';
import { CSV_BATCH_SIZE } from '../common/http/csv';
import { Page } from '../common/http/envelope';
import { createdRange } from '../common/http/list-filters';
import type { PageQuery } from '../common/http/pagination';
import { CustomersService } from '../customers';
import { ReplicaReads } from '../database/replica-reads';
import type { AdminInvoiceQuery } from './dto/invoice.dto';
import type { InvoiceSummaryRow } from './invoice.mapper';
import { type AdminInvoiceFilter, InvoicesRepository } from './invoices.repository';
import { type InvoiceExportRow, InvoicesService } from './invoices.service';

/** Admins searching invoices across apps and modes. */
@Injectable()
export class AdminInvoiceSearchService {
  constructor(
    private readonly invoices: InvoicesRepository,
    private readonly service: InvoicesService,
    private readonly customers: CustomersService,
    private readonly apps: AppsService,
    private readonly reads: ReplicaReads,
  ) {}

  async search(query: AdminInvoiceQuery & { appIds?: number[] }): Promise<Page<InvoiceSummaryRow>> {
    return this.reads.read(() => this.searchHere(query));
  }

  private async searchHere(
    query: AdminInvoiceQuery & { appIds?: number[] },
  ): Promise<Page<InvoiceSummaryRow>> {
    const page = await this.invoices.adminPage(query as PageQuery, await this.filterOf(query));
    const customers = await this.customers.byIds(page.items.map((i) => i.customerId));
    const appNames = await this.apps.namesOf(page.items.map((i) => i.appId));
    return new Page(
      page.items.map((invoice) => ({
        invoice,
        customer: customers.get(invoice.customerId)!,
        appName: appNames.get(invoice.appId) ?? '',
      })),
      page.pagination,
    );
  }

  /** Every invoice the search selects, for a CSV export (see InvoicesService.exportOf). */
  async exportOf(
    query: AdminInvoiceQuery & { appIds?: number[] },
    limit: number,
  ): Promise<{ count: number; batches: AsyncIterable<InvoiceExportRow[]> }> {
    return this.reads.read(async () => {
      const source = this.invoices.adminExportOf(await this.filterOf(query));
      return {
        count: await source.count(limit),
        batches: this.service.exportRows(source.batches(CSV_BATCH_SIZE)),
      };
    });
  }

  private async filterOf(
    query: AdminInvoiceQuery & { appIds?: number[] },
  ): Promise<AdminInvoiceFilter> {
    const range = createdRange(query.from, query.to);
    return {
      applicationId: query.applicationId,
      appIds: query.appIds,
      mode: query.mode,
      status: query.status,
      number: query.number,
      customerRefId: query.customerRefId,
      range,
      search: await this.service.searchFor(
        { appId: query.applicationId, appIds: query.appIds, mode: query.mode },
        query.q,
      ),
    };
  }
}
