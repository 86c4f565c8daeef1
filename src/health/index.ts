/** The health feature's public door. */
export { HealthModule } from './health.module';
