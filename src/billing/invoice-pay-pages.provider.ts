import { Injectable } from '@nestjs/common';

import type { TenantScope } from '../database/tenant';
import { InvoicesService, isPayable } from '../invoices';
import { InvoicePayPages } from '../payments';

/** The payments result page's way back to an invoice that still has something due. */
@Injectable()
export class BillingInvoicePayPages extends InvoicePayPages {
  constructor(private readonly invoices: InvoicesService) {
    super();
  }

  async whileDue(scope: TenantScope, invoiceId: number): Promise<string | null> {
    const { invoice, payableUrl } = await this.invoices.get(scope, invoiceId);
    return isPayable(invoice.status) ? payableUrl : null;
  }
}
