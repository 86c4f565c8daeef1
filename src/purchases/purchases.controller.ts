import { Body, Controller, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';

import { AppAuth, CurrentApp } from '../auth/decorators';
import type { AppPrincipal } from '../common/http/request-context';
import { ApiEnvelope, ApiErrors } from '../common/http/swagger';
import { Idempotent } from '../idempotency/idempotency.interceptor';
import { CreatePurchaseDto, PurchaseDto } from './dto/purchase.dto';
import { PurchasesService } from './purchases.service';

@ApiTags('Purchases')
@Controller('api/v1/purchases')
@AppAuth()
export class PurchasesController {
  constructor(private readonly purchases: PurchasesService) {}

  @Post()
  @Idempotent()
  @ApiOperation({
    summary: 'Buy a price: issues an invoice with one line and returns its payable link',
    description:
      "A RECURRING price also starts a subscription (subscriptionId): TRIALING with benefits at once when the price has a trial (the invoice is due when the trial ends), else INCOMPLETE until this first invoice is paid. 404 for a price outside the key's app and mode; 409 INVALID_STATE for an inactive price or an archived product.",
  })
  @ApiEnvelope(PurchaseDto, { status: 201 })
  @ApiErrors(404, 409)
  purchase(@CurrentApp() app: AppPrincipal, @Body() body: CreatePurchaseDto): Promise<PurchaseDto> {
    return this.purchases.purchase(app, body);
  }
}
