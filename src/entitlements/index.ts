/** The entitlements feature's public door. */
export { EntitlementsModule } from './entitlements.module';
export {
  type EntitlementChange,
  EntitlementsService,
  type HeldEntitlement,
} from './entitlements.service';
