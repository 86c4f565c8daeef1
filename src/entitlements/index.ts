/** The entitlements feature's public door. */
export { EntitlementDto } from './dto/entitlement.dto';
export { toEntitlementDto } from './entitlement.mapper';
export { EntitlementsModule } from './entitlements.module';
export {
  type EntitlementChange,
  EntitlementsService,
  type HeldEntitlement,
} from './entitlements.service';
