/** The catalog feature's public door. */
export { CatalogModule } from './catalog.module';
export { CatalogService } from './catalog.service';
