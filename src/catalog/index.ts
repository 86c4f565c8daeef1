/** The catalog feature's public door. */
export { CatalogModule } from './catalog.module';
export { CatalogService } from './catalog.service';
export type { Price } from './price.entity';
export type { Product } from './product.entity';
export type { Benefit } from './benefit.entity';
export type { PriceInterval } from './price-terms';
export { ProductBenefitsChanged } from './catalog-events';
