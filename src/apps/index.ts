/** The apps feature's public door. */
export { originOf, parseAllowlist } from './app-settings';
export { AppsModule } from './apps.module';
export { AppsService } from './apps.service';
