/** The customer-profiles feature's public door. */
export { CustomerProfilesModule } from './customer-profiles.module';
