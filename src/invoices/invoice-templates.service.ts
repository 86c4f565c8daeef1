import { Injectable } from '@nestjs/common';
import { Transactional } from '@nestjs-cls/transactional';

import type { TenantScope } from '../database/tenant';
import type { InvoiceTemplateInput } from './dto/invoice.dto';
import { InvoiceTemplate } from './invoice.entity';
import { InvoicesRepository } from './invoices.repository';

/** The branding of invoices and the pay page, one per app and mode (a LIVE invoice uses the LIVE one). */
@Injectable()
export class InvoiceTemplatesService {
  constructor(private readonly invoices: InvoicesRepository) {}

  get(scope: TenantScope): Promise<InvoiceTemplate | null> {
    return this.invoices.template(scope);
  }

  @Transactional()
  put(scope: TenantScope, input: InvoiceTemplateInput): Promise<InvoiceTemplate> {
    return this.invoices.upsertTemplate(scope, {
      logoUrl: input.logoUrl ?? null,
      companyName: input.companyName ?? null,
      companyAddress: input.companyAddress ?? null,
      contactDetails: input.contactDetails ?? null,
      footerNote: input.footerNote ?? null,
      accentColor: input.accentColor ?? null,
    });
  }
}
