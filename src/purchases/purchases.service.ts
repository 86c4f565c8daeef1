import { Injectable } from '@nestjs/common';
import { Transactional } from '@nestjs-cls/transactional';
import { CatalogService } from '../catalog';
import { AppError } from '../common/errors/app-error';
import type { TenantScope } from '../database/tenant';
import { InvoicesService } from '../invoices';
import type { CreatePurchaseDto, PurchaseDto } from './dto/purchase.dto';

/**
 * Buying a price. ONE_TIME: an ISSUED invoice with one line (product name,
 * qty 1, price amount), paid through its payable link. RECURRING prices get
 * a subscription and its first invoice once the subscriptions feature lands;
 * until then they answer 409 INVALID_STATE. Each price type is one method of
 * `purchase`, so subscriptions slot in as one more branch.
 */
@Injectable()
export class PurchasesService {
  constructor(
    private readonly catalog: CatalogService,
    private readonly invoices: InvoicesService,
  ) {}

  @Transactional()
  async purchase(scope: TenantScope, input: CreatePurchaseDto): Promise<PurchaseDto> {
    const { price, product } = await this.catalog.priceForPurchase(scope, input.priceId);
    if (price.type !== 'ONE_TIME') {
      throw AppError.invalidState(
        'Recurring prices are sold through subscriptions, which are not available yet',
      );
    }
    const { invoice, payableUrl } = await this.invoices.create(
      scope,
      {
        customerReference: input.customerReference,
        customerName: input.customerName,
        customerEmail: input.customerEmail,
        customerPhone: input.customerPhone,
        lineItems: [{ description: product.name, qty: 1, unitAmountMinor: price.amountMinor }],
        currency: price.currency,
      },
      { priceId: price.id },
    );
    return {
      invoiceId: invoice.id,
      invoiceNumber: invoice.number,
      status: invoice.status,
      totalMinor: invoice.totalMinor,
      currency: invoice.currency,
      priceId: price.id,
      productId: product.id,
      payableLink: { payableUrl },
      subscriptionId: null,
    };
  }
}
