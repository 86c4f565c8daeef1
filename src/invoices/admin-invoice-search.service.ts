import { Injectable } from '@nestjs/common';

import { AppsService } from '../apps';
import { Page } from '../common/http/envelope';
import { CustomersService } from '../customers';
import type { AdminInvoiceQuery } from './dto/invoice.dto';
import type { InvoiceSummaryRow } from './invoice.mapper';
import { InvoicesRepository } from './invoices.repository';

/** Admins searching invoices across apps and modes. */
@Injectable()
export class AdminInvoiceSearchService {
  constructor(
    private readonly invoices: InvoicesRepository,
    private readonly customers: CustomersService,
    private readonly apps: AppsService,
  ) {}

  async search(query: AdminInvoiceQuery & { appIds?: number[] }): Promise<Page<InvoiceSummaryRow>> {
    const page = await this.invoices.adminPage(query);
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
}
