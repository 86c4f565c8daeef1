/** The apps feature's public door. */
export { AppsModule } from './apps.module';
export { AppsService } from './apps.service';
