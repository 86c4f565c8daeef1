import { Injectable } from '@nestjs/common';
import { Transactional } from '@nestjs-cls/transactional';

import { AuditService } from '../audit';
import type { TenantScope } from '../database/tenant';
import type { InvoiceTemplateInput } from './dto/invoice.dto';
import { InvoiceTemplate } from './invoice.entity';
import { InvoicesRepository } from './invoices.repository';

/** The branding of invoices and the pay page, one per app and mode (a LIVE invoice uses the LIVE one). */
@Injectable()
export class InvoiceTemplatesService {
  constructor(
    private readonly invoices: InvoicesRepository,
    private readonly audit: AuditService,
  ) {}

  get(scope: TenantScope): Promise<InvoiceTemplate | null> {
    return this.invoices.template(scope);
  }

  @Transactional()
  async put(scope: TenantScope, input: InvoiceTemplateInput): Promise<InvoiceTemplate> {
    const fields = {
      logoUrl: input.logoUrl ?? null,
      companyName: input.companyName ?? null,
      companyAddress: input.companyAddress ?? null,
      contactDetails: input.contactDetails ?? null,
      footerNote: input.footerNote ?? null,
      accentColor: input.accentColor ?? null,
    };
    await this.audit.record({
      action: 'invoice_template.updated',
      targetType: 'invoice_template',
      targetId: null,
      after: { applicationId: scope.appId, mode: scope.mode, ...fields },
      adminOnly: true,
    });
    return this.invoices.upsertTemplate(scope, fields);
  }
}
