import { ApiProperty } from '@nestjs/swagger';

import { CustomerDto } from '../../customers';
import { EntitlementDto } from '../../entitlements';
import { InvoiceListItemDto } from '../../invoices';
import { PaymentDto } from '../../payments';
import { SubscriptionDto } from '../../subscriptions';

/** How many of each of a customer's records the detail shows (newest first). */
export const PROFILE_ITEMS = 20;

/** GET /api/v1/customers/{reference}: the customer with their records. */
export class CustomerProfileDto extends CustomerDto {
  @ApiProperty({
    type: [InvoiceListItemDto],
    maxItems: PROFILE_ITEMS,
    description: `The newest ${PROFILE_ITEMS} invoices (all: GET /api/v1/invoices?customerReference=)`,
  })
  invoices: InvoiceListItemDto[];
  @ApiProperty({ type: 'integer', description: 'How many invoices the customer has' })
  invoicesTotal: number;
  @ApiProperty({
    type: [PaymentDto],
    maxItems: PROFILE_ITEMS,
    description: `The newest ${PROFILE_ITEMS} payments (all: GET /api/v1/customers/{externalId}/payments)`,
  })
  payments: PaymentDto[];
  @ApiProperty({ type: 'integer', description: 'How many payments the customer has' })
  paymentsTotal: number;
  @ApiProperty({
    type: [SubscriptionDto],
    maxItems: PROFILE_ITEMS,
    description: `The newest ${PROFILE_ITEMS} subscriptions (all: GET /api/v1/subscriptions?customerReference=)`,
  })
  subscriptions: SubscriptionDto[];
  @ApiProperty({ type: 'integer', description: 'How many subscriptions the customer has' })
  subscriptionsTotal: number;
  @ApiProperty({
    type: [EntitlementDto],
    maxItems: PROFILE_ITEMS,
    description: `What the customer holds now, oldest grant first, the first ${PROFILE_ITEMS} (all: GET /api/v1/customers/{externalId}/entitlements)`,
  })
  entitlements: EntitlementDto[];
  @ApiProperty({ type: 'integer', description: 'How many grants the customer holds' })
  entitlementsTotal: number;
}
