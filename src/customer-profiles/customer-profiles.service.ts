import { Injectable } from '@nestjs/common';

import { CustomersService, toCustomerDto } from '../customers';
import type { TenantScope } from '../database/tenant';
import { EntitlementsService, toEntitlementDto } from '../entitlements';
import { InvoicesService, toInvoiceListItemDto } from '../invoices';
import { PaymentsService, toPaymentDto } from '../payments';
import { SubscriptionsService, toSubscriptionDto } from '../subscriptions';
import { type CustomerProfileDto, PROFILE_ITEMS } from './dto/customer-profile.dto';

/**
 * One customer as the dashboard's Customers screen shows them (decisions
 * section 20): the customer, and the newest of their invoices, payments and
 * subscriptions, and what they hold, each bounded, each with its total.
 * Read through the features that own those records.
 */
@Injectable()
export class CustomerProfilesService {
  constructor(
    private readonly customers: CustomersService,
    private readonly invoices: InvoicesService,
    private readonly payments: PaymentsService,
    private readonly subscriptions: SubscriptionsService,
    private readonly entitlements: EntitlementsService,
  ) {}

  /** 404 for a reference the partition has never seen. */
  async profile(scope: TenantScope, reference: string): Promise<CustomerProfileDto> {
    const customer = await this.customers.getByExternalId(scope, reference);
    const newest = { page: 0, size: PROFILE_ITEMS };
    // Sequential on purpose: inside a transaction they would share one connection.
    const invoices = await this.invoices.list(scope, newest, { customerReference: reference });
    const payments = await this.payments.list(scope, newest, { customerId: customer.id });
    const subscriptions = await this.subscriptions.list(scope, newest, {
      customerReference: reference,
    });
    const held = await this.entitlements.heldBy(scope, customer.id);
    return {
      ...toCustomerDto(customer),
      invoices: invoices.items.map(toInvoiceListItemDto),
      invoicesTotal: invoices.pagination.totalElements,
      payments: payments.items.map(toPaymentDto),
      paymentsTotal: payments.pagination.totalElements,
      subscriptions: subscriptions.items.map(toSubscriptionDto),
      subscriptionsTotal: subscriptions.pagination.totalElements,
      entitlements: held.slice(0, PROFILE_ITEMS).map(toEntitlementDto),
      entitlementsTotal: held.length,
    };
  }
}
