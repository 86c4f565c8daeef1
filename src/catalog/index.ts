/** The catalog feature's public door. */
export type { Benefit } from './benefit.entity';
export { CatalogModule } from './catalog.module';
export { CatalogService } from './catalog.service';
export { ProductBenefitsChanged } from './catalog-events';
export type { Price } from './price.entity';
export type { PriceInterval } from './price-terms';
export type { Product } from './product.entity';
