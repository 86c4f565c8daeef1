/** The entitlements feature's public door. */
export { EntitlementsModule } from './entitlements.module';
export {
  EntitlementsService,
  type EntitlementChange,
  type HeldEntitlement,
} from './entitlements.service';
