import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import {
  ApiBody,
  ApiExtraModels,
  ApiOperation,
  ApiParam,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';

import { AppAuth, CATALOG_ROUTES, CurrentApp } from '../auth/decorators';
import { ParseIdPipe } from '../common/http/parse-id.pipe';
import type { AppPrincipal } from '../common/http/request-context';
import { ApiEnvelope, ApiErrors } from '../common/http/swagger';
import { Idempotent } from '../idempotency/idempotency.interceptor';
import {
  CreatePriceDto,
  OneTimePriceRequest,
  PriceDto,
  RecurringPriceRequest,
} from './dto/price.dto';
import { toPriceDto } from './price.mapper';
import { PricesService } from './prices.service';

@ApiTags('Products')
@Controller('api/v1/products/:id/prices')
@AppAuth(CATALOG_ROUTES)
@ApiParam({ name: 'id', type: 'integer', description: 'The product' })
export class PricesController {
  constructor(private readonly prices: PricesService) {}

  @Post()
  @Idempotent()
  @ApiOperation({
    summary: 'Create an active price for a product',
    description:
      'A DRAFT product becomes ACTIVE with its first price. RECURRING needs interval and intervalCount; ONE_TIME takes neither, nor trialDays. Currency: BDT only. An ARCHIVED product is 409 INVALID_STATE.',
  })
  @ApiExtraModels(OneTimePriceRequest, RecurringPriceRequest)
  @ApiBody({
    schema: {
      oneOf: [
        { $ref: getSchemaPath(OneTimePriceRequest) },
        { $ref: getSchemaPath(RecurringPriceRequest) },
      ],
      discriminator: {
        propertyName: 'type',
        mapping: {
          ONE_TIME: getSchemaPath(OneTimePriceRequest),
          RECURRING: getSchemaPath(RecurringPriceRequest),
        },
      },
    },
  })
  @ApiEnvelope(PriceDto, { status: 201 })
  @ApiErrors(404, 409)
  async create(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) productId: number,
    @Body() body: CreatePriceDto,
  ): Promise<PriceDto> {
    return toPriceDto(await this.prices.create(app, productId, body));
  }

  @Post(':priceId/deactivate')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Deactivate a price: it can no longer be purchased (already inactive: no-op)',
  })
  @ApiParam({ name: 'priceId', type: 'integer' })
  @ApiEnvelope(PriceDto)
  @ApiErrors(404)
  async deactivate(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) productId: number,
    @Param('priceId', ParseIdPipe) priceId: number,
  ): Promise<PriceDto> {
    return toPriceDto(await this.prices.deactivate(app, productId, priceId));
  }
}
