import { Body, Controller, HttpCode, Param, Post, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiProperty, ApiTags } from '@nestjs/swagger';
import { IsIn } from 'class-validator';

import { AppAuth, CurrentApp } from '../auth/decorators';
import { ParseIdPipe } from '../common/http/parse-id.pipe';
import type { AppPrincipal } from '../common/http/request-context';
import { ApiEnvelope, ApiErrors } from '../common/http/swagger';
import { PaymentDto, toPaymentDto } from '../payments';
import { SubscriptionDto, SubscriptionsService, toSubscriptionDto } from '../subscriptions';
import { TestHelpersService } from './test-helpers.service';
import { TestModeOnlyGuard } from './test-mode-only.guard';

export class SettleDto {
  @ApiProperty({ enum: ['succeeded', 'failed', 'cancelled'] })
  @IsIn(['succeeded', 'failed', 'cancelled'])
  outcome: 'succeeded' | 'failed' | 'cancelled';
}

@ApiTags('Test helpers (TEST keys only)')
@Controller('api/v1/test-helpers')
// Order matters: class decorators apply bottom-up and guards run in the order
// they were added, so the key guard (from @AppAuth) must sit BELOW this line to
// run first and set the principal the mode check reads.
@UseGuards(TestModeOnlyGuard)
@AppAuth()
export class TestHelpersController {
  constructor(
    private readonly helpers: TestHelpersService,
    private readonly subscriptions: SubscriptionsService,
  ) {}

  @Post('payments/:id/settle')
  @HttpCode(200)
  @ApiOperation({
    summary:
      'Complete the sandbox checkout with an outcome, through the same confirmation path a gateway uses',
    description:
      'Works after expiry too (late settlement revives the payment). LIVE keys: 403 TEST_MODE_ONLY.',
  })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 }, description: 'The payment' })
  @ApiEnvelope(PaymentDto)
  @ApiErrors(404, 409)
  async settle(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) id: number,
    @Body() body: SettleDto,
  ): Promise<PaymentDto> {
    return toPaymentDto(await this.helpers.settlePayment(app, id, body.outcome));
  }

  @Post('payments/:id/expire')
  @HttpCode(200)
  @ApiOperation({
    summary: "The payment's deadline passes now; the expiry sweep's logic runs for it",
  })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 }, description: 'The payment' })
  @ApiEnvelope(PaymentDto)
  @ApiErrors(404, 409)
  async expire(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) id: number,
  ): Promise<PaymentDto> {
    return toPaymentDto(await this.helpers.expirePayment(app, id));
  }

  @Post('subscriptions/:id/advance')
  @HttpCode(200)
  @ApiOperation({
    summary:
      "The subscription's own clock jumps to its next scheduled moment, and what is due runs",
    description:
      'The next of: trial-end warning, trial end, period end (renewal or cancel at period end), its open invoice becoming overdue, the 14-day dunning cancellation. Runs exactly what the scheduler would, with its events. Other subscriptions and the wall clock are untouched. Nothing scheduled (PAUSED, CANCELED): 409. LIVE keys: 403 TEST_MODE_ONLY.',
  })
  @ApiParam({
    name: 'id',
    schema: { type: 'integer', minimum: 1 },
    description: 'The subscription',
  })
  @ApiEnvelope(SubscriptionDto)
  @ApiErrors(404, 409)
  async advance(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) id: number,
  ): Promise<SubscriptionDto> {
    return toSubscriptionDto(await this.subscriptions.advance(app, id));
  }
}
