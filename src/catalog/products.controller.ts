import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';

import {
  AdminAuth,
  AppAuth,
  AppScoped,
  assertInScope,
  CATALOG_ROUTES,
  CurrentAdmin,
  CurrentApp,
} from '../auth/decorators';
import { Page } from '../common/http/envelope';
import { ParseIdPipe } from '../common/http/parse-id.pipe';
import type { AdminPrincipal, AppPrincipal } from '../common/http/request-context';
import { ApiEnvelope, ApiErrors } from '../common/http/swagger';
import { Idempotent } from '../idempotency/idempotency.interceptor';
import { AdminScopeQuery } from './dto/benefit.dto';
import {
  AttachBenefitDto,
  CreateProductDto,
  ProductDto,
  ProductListQuery,
  UpdateProductDto,
} from './dto/product.dto';
import { toProductDto } from './product.mapper';
import { ProductsService } from './products.service';

@ApiTags('Products')
@Controller('api/v1/products')
@AppAuth(CATALOG_ROUTES)
export class ProductsController {
  constructor(private readonly products: ProductsService) {}

  @Post()
  @Idempotent()
  @ApiOperation({ summary: "Create a product in the key's mode (DRAFT until its first price)" })
  @ApiEnvelope(ProductDto, { status: 201 })
  async create(
    @CurrentApp() app: AppPrincipal,
    @Body() body: CreateProductDto,
  ): Promise<ProductDto> {
    return toProductDto(await this.products.create(app, body));
  }

  @Get()
  @ApiOperation({ summary: "List products of the key's mode, with their prices and benefits" })
  @ApiEnvelope(ProductDto, { isArray: true })
  async list(
    @CurrentApp() app: AppPrincipal,
    @Query() query: ProductListQuery,
  ): Promise<Page<ProductDto>> {
    const page = await this.products.list(app, query);
    return new Page(page.items.map(toProductDto), page.pagination);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a product with its prices and benefits' })
  @ApiParam({ name: 'id', type: 'integer', description: 'The product' })
  @ApiEnvelope(ProductDto)
  @ApiErrors(404)
  async get(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) id: number,
  ): Promise<ProductDto> {
    return toProductDto(await this.products.get(app, id));
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Rename a product or change its description',
    description:
      'Fields left out stay; `description: null` clears it. Any status, ARCHIVED included. Prices never change: add a new price and deactivate the old one.',
  })
  @ApiParam({ name: 'id', type: 'integer', description: 'The product' })
  @ApiEnvelope(ProductDto)
  @ApiErrors(404)
  async update(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) id: number,
    @Body() body: UpdateProductDto,
  ): Promise<ProductDto> {
    return toProductDto(await this.products.update(app, id, body));
  }
}

@ApiTags('Admin catalog')
@Controller('api/v1/admin/products')
export class AdminProductsController {
  constructor(private readonly products: ProductsService) {}

  @Post()
  @AdminAuth('catalog:write')
  @AppScoped()
  @ApiOperation({
    summary: 'Create a product for an app in the given mode (DRAFT until its first price)',
  })
  @ApiEnvelope(ProductDto, { status: 201 })
  @ApiErrors(404)
  async create(
    @Query() scope: AdminScopeQuery,
    @Body() body: CreateProductDto,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<ProductDto> {
    assertInScope(admin, scope.applicationId, 'App');
    return toProductDto(
      await this.products.create({ appId: scope.applicationId, mode: scope.mode }, body),
    );
  }

  @Post(':id/archive')
  @HttpCode(200)
  @AdminAuth('catalog:write')
  @AppScoped()
  @ApiOperation({
    summary: 'Archive a product: no new purchases or prices (archiving again is a no-op)',
  })
  @ApiParam({ name: 'id', type: 'integer', description: 'The product' })
  @ApiEnvelope(ProductDto)
  @ApiErrors(404)
  async archive(
    @Param('id', ParseIdPipe) id: number,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<ProductDto> {
    const scope = await this.products.scopeOf(id);
    assertInScope(admin, scope.appId, 'Product');
    return toProductDto(await this.products.archive(scope, id));
  }

  @Post(':id/benefits')
  @HttpCode(200)
  @AdminAuth('catalog:write')
  @AppScoped()
  @ApiOperation({
    summary: 'Attach a benefit of the same app and mode to a product (attaching twice is a no-op)',
  })
  @ApiParam({ name: 'id', type: 'integer', description: 'The product' })
  @ApiEnvelope(ProductDto)
  @ApiErrors(404)
  async attachBenefit(
    @Param('id', ParseIdPipe) id: number,
    @Body() body: AttachBenefitDto,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<ProductDto> {
    const scope = await this.products.scopeOf(id);
    assertInScope(admin, scope.appId, 'Product');
    return toProductDto(await this.products.attachBenefit(scope, id, body.benefitId));
  }
}
