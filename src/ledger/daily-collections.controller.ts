import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';

import { AppAuth, CurrentApp } from '../auth/decorators';
import { Page } from '../common/http/envelope';
import type { AppPrincipal } from '../common/http/request-context';
import { ApiEnvelope, ApiErrors } from '../common/http/swagger';
import { DailyCollectionsService } from './daily-collections.service';
import { DailyCollectionDto, DailyCollectionsQuery } from './dto/daily-collections.dto';

/** What the dashboard's Overview draws its figures and bar chart from (decisions sections 15 and 20). */
@ApiTags('Reports')
@Controller('api/v1/reports')
@AppAuth()
export class DailyCollectionsController {
  constructor(private readonly daily: DailyCollectionsService) {}

  @Get('daily-collections')
  @ApiOperation({
    summary: "Taka collected, refunded and net per Asia/Dhaka day, in the key's mode",
    description:
      'One row per day over the last `days` days (default 30, at most 90), today included, oldest first; a day without a capture or refund has 0s. A payment counts on the Dhaka day it succeeded, for its captured amount (collectedMinor: gross, later refunds do not change it); a refund counts on the Dhaka day it reached SUCCEEDED, for its amount (refundedMinor), whatever day its payment was captured; netMinor = collectedMinor - refundedMinor, negative on a day that gave back more than it collected. Sums are exact; a day whose figure is above 2^53-1 is 422 AMOUNT_OUT_OF_RANGE naming the app.',
  })
  @ApiEnvelope(DailyCollectionDto, { isArray: true })
  @ApiErrors(422)
  async list(
    @CurrentApp() app: AppPrincipal,
    @Query() query: DailyCollectionsQuery,
  ): Promise<Page<DailyCollectionDto>> {
    return Page.all(await this.daily.list(app, query.days ?? 30));
  }
}
