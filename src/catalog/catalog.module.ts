import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AuditModule } from '../audit';
import { AuthModule } from '../auth';
import { Benefit } from './benefit.entity';
import { AdminBenefitsController, BenefitsController } from './benefits.controller';
import { BenefitsService } from './benefits.service';
import { CatalogRepository } from './catalog.repository';
import { CatalogService } from './catalog.service';
import { Price } from './price.entity';
import { PricesController } from './prices.controller';
import { PricesService } from './prices.service';
import { Product } from './product.entity';
import { ProductBenefit } from './product-benefit.entity';
import { AdminProductsController, ProductsController } from './products.controller';
import { ProductsService } from './products.service';

/** Products, prices and benefits. Other features use CatalogService (and BenefitsService). */
@Module({
  imports: [
    AuditModule,
    AuthModule,
    TypeOrmModule.forFeature([Benefit, Product, Price, ProductBenefit]),
  ],
  controllers: [
    BenefitsController,
    AdminBenefitsController,
    ProductsController,
    AdminProductsController,
    PricesController,
  ],
  providers: [CatalogRepository, BenefitsService, ProductsService, PricesService, CatalogService],
  exports: [BenefitsService, CatalogService],
})
export class CatalogModule {}
