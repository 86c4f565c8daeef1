import type { EntitlementDto } from './dto/entitlement.dto';
import type { HeldEntitlement } from './entitlements.service';

export function toEntitlementDto({ entitlement: e, benefit: b }: HeldEntitlement): EntitlementDto {
  return {
    benefitId: b.id,
    lookupKey: b.lookupKey,
    name: b.name,
    grantedAt: e.grantedAt.toISOString(),
    subscriptionId: e.subscriptionId,
    invoiceId: e.invoiceId,
  };
}
