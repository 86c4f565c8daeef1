import { Injectable } from '@nestjs/common';

import { CSV_BATCH_SIZE } from '../common/http/csv';
import type { Page } from '../common/http/envelope';
import { createdRange, type SearchScope, searchTerm } from '../common/http/list-filters';
import type { PageQuery } from '../common/http/pagination';
import type { Mode } from '../common/http/request-context';
import { type Customer, CustomersService } from '../customers';
import { ReplicaReads } from '../database/replica-reads';
import { InvoicesService } from '../invoices';
import { PaymentsService } from '../payments';
import type { Refund, RefundStatus } from './refund.entity';
import { type RefundFilter, type RefundSearch, RefundsRepository } from './refunds.repository';

/** The refund lists' filters: one partition (app routes) or an operator's search. */
export interface RefundListFilter {
  status?: RefundStatus;
  applicationId?: number;
  mode?: Mode;
  /** An app-scoped admin's apps. */
  appIds?: number[];
  awaitingApproval?: 'true' | 'false';
  /** Asia/Dhaka days, both inclusive (operators: or instants), on the creation time. */
  from?: string;
  to?: string;
  q?: string;
}

/** A refund in an export, with its customer. */
export interface RefundExportRow {
  refund: Refund;
  customer: Customer;
}

/**
 * The refund lists (GET /api/v1/refunds and /api/v1/admin/refunds): their
 * filters, search and CSV export. The search names refunds through the
 * features that own the fields: payments (id, reference, transaction id),
 * invoices (number) and customers (reference, email, phone).
 */
@Injectable()
export class RefundListsService {
  constructor(
    private readonly refunds: RefundsRepository,
    private readonly payments: PaymentsService,
    private readonly invoices: InvoicesService,
    private readonly customers: CustomersService,
    private readonly reads: ReplicaReads,
  ) {}

  /** On the read replica once it has caught up (docs/operations.md, "A read replica"), as the export. */
  async list(query: PageQuery, filter: RefundListFilter): Promise<Page<Refund>> {
    return this.reads.read(async () => this.refunds.page(query, await this.filterOf(filter)));
  }

  /**
   * Every refund the filters select, for a CSV export: how many (counting
   * at most `limit + 1`), and the rows with their customers, in batches,
   * newest first.
   */
  async exportOf(
    filter: RefundListFilter,
    limit: number,
  ): Promise<{ count: number; batches: AsyncIterable<RefundExportRow[]> }> {
    return this.reads.read(async () => {
      const source = this.refunds.exportOf(await this.filterOf(filter));
      return {
        count: await source.count(limit),
        batches: this.rows(source.batches(CSV_BATCH_SIZE)),
      };
    });
  }

  private async *rows(batches: AsyncIterable<Refund[]>): AsyncGenerator<RefundExportRow[]> {
    for await (const batch of batches) {
      const customers = await this.customers.byIds(batch.map((r) => r.customerId));
      yield batch.map((refund) => ({ refund, customer: customers.get(refund.customerId)! }));
    }
  }

  private async filterOf(filter: RefundListFilter): Promise<RefundFilter> {
    const range = createdRange(filter.from, filter.to);
    return {
      status: filter.status,
      applicationId: filter.applicationId,
      mode: filter.mode,
      appIds: filter.appIds,
      awaitingApproval: filter.awaitingApproval,
      range,
      search: await this.searchFor(
        { appId: filter.applicationId, appIds: filter.appIds, mode: filter.mode },
        filter.q,
      ),
    };
  }

  /** What `q` names (decisions section 20), resolved by the features that own each field. */
  private async searchFor(where: SearchScope, q: string | undefined): Promise<RefundSearch | null> {
    const term = searchTerm(q);
    if (!term) return null;
    // Sequential on purpose: inside a transaction they share one connection.
    const paymentIds = await this.payments.idsMatching(where, term);
    const customerIds = await this.customers.idsMatching(where, term);
    const invoiceIds = await this.invoices.idsByNumber(where, term);
    return { paymentIds, customerIds, invoiceIds };
  }
}
