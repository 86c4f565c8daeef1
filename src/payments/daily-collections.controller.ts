import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';

import { AppAuth, CurrentApp } from '../auth/decorators';
import { Page } from '../common/http/envelope';
import type { AppPrincipal } from '../common/http/request-context';
import { ApiEnvelope, ApiErrors } from '../common/http/swagger';
import { DailyCollectionDto, DailyCollectionsQuery } from './dto/daily-collections.dto';
import { PaymentsService } from './payments.service';

/** What the dashboard's Overview draws its bar chart from (decisions section 15). */
@ApiTags('Reports')
@Controller('api/v1/reports')
@AppAuth()
export class DailyCollectionsController {
  constructor(private readonly payments: PaymentsService) {}

  @Get('daily-collections')
  @ApiOperation({
    summary: "Taka collected per Asia/Dhaka day, in the key's mode",
    description:
      'One row per day over the last `days` days (default 30, at most 90), today included, oldest first; a day without a capture has collectedMinor 0. A payment counts on the Dhaka day it succeeded, for its captured amount. Sums are exact; a day whose sum is above 2^53-1 is 422 AMOUNT_OUT_OF_RANGE naming the app.',
  })
  @ApiEnvelope(DailyCollectionDto, { isArray: true })
  @ApiErrors(422)
  async list(
    @CurrentApp() app: AppPrincipal,
    @Query() query: DailyCollectionsQuery,
  ): Promise<Page<DailyCollectionDto>> {
    return Page.all(await this.payments.dailyCollections(app, query.days ?? 30));
  }
}
