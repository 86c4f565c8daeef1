import { Body, Controller, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';

import { AppAuth, CurrentApp } from '../auth/decorators';
import type { AppPrincipal } from '../common/http/request-context';
import { ApiEnvelope, ApiErrors } from '../common/http/swagger';
import { Idempotent } from '../idempotency/idempotency.interceptor';
import { CreatePaymentDto, PaymentDto, toPaymentDto } from '../payments';
import { InvoicePaymentsService } from './invoice-payments.service';

/**
 * `POST /api/v1/payments` lives in billing because a payment may pay an
 * invoice; the other payment routes are in src/payments.
 */
@ApiTags('Payments')
@Controller('api/v1/payments')
@AppAuth()
export class CreatePaymentController {
  constructor(private readonly billing: InvoicePaymentsService) {}

  @Post()
  @Idempotent({ recoveryPoints: true })
  @ApiOperation({
    summary: 'Create a payment; send the customer to its checkoutUrl',
    description:
      "Amount within the app's minAmountMinor..maxAmountMinor (else 422 AMOUNT_OUT_OF_RANGE); success/fail/cancel URLs must match the app's returnUrlAllowlist (else 400 REDIRECT_URL_NOT_ALLOWED). expiresAt = now + paymentExpiryMinutes. The payment is committed PENDING before the gateway is asked for its checkout; a gateway that cannot open one leaves it FAILED and answers 503 SERVICE_UNAVAILABLE.",
  })
  @ApiEnvelope(PaymentDto, { status: 201 })
  @ApiErrors(404, 409, 422, 503)
  async create(
    @CurrentApp() app: AppPrincipal,
    @Body() body: CreatePaymentDto,
  ): Promise<PaymentDto> {
    return toPaymentDto(await this.billing.createPayment(app, body));
  }
}
