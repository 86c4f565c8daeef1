import { Injectable } from '@nestjs/common';
import { Transactional } from '@nestjs-cls/transactional';

import { CatalogService } from '../catalog';
import type { TenantScope } from '../database/tenant';
import { InvoicesService } from '../invoices';
import { SubscriptionsService } from '../subscriptions';
import type { CreatePurchaseDto, PurchaseDto } from './dto/purchase.dto';

/**
 * Buying a price. ONE_TIME: an ISSUED invoice with one line (product name,
 * qty 1, price amount), paid through its payable link; paid, it grants the
 * product's benefits for good. RECURRING: a subscription and its first
 * invoice (TRIALING or INCOMPLETE; see SubscriptionsService.start).
 */
@Injectable()
export class PurchasesService {
  constructor(
    private readonly catalog: CatalogService,
    private readonly invoices: InvoicesService,
    private readonly subscriptions: SubscriptionsService,
  ) {}

  @Transactional()
  async purchase(scope: TenantScope, input: CreatePurchaseDto): Promise<PurchaseDto> {
    const { price, product } = await this.catalog.priceForPurchase(scope, input.priceId);
    if (price.type === 'RECURRING') {
      const { subscription, invoice: view } = await this.subscriptions.start(
        scope,
        price,
        product,
        input,
      );
      return {
        invoiceId: view.invoice.id,
        invoiceNumber: view.invoice.number,
        status: view.invoice.status,
        totalMinor: view.invoice.totalMinor,
        currency: view.invoice.currency,
        priceId: price.id,
        productId: product.id,
        payableLink: { payableUrl: view.payableUrl },
        subscriptionId: subscription.id,
      };
    }
    const { invoice, payableUrl } = await this.invoices.create(
      scope,
      {
        customerReference: input.customerReference,
        customerName: input.customerName,
        customerEmail: input.customerEmail,
        customerPhone: input.customerPhone,
        customerLanguage: input.customerLanguage,
        notifyCustomer: input.notifyCustomer,
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
