/** The dashboard feature's public door. */
export { DashboardModule } from './dashboard.module';
