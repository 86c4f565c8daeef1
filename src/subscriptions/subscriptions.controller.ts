import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';

import {
  AdminAuth,
  AppAuth,
  AppScoped,
  CurrentAdmin,
  CurrentApp,
  scopedAppIds,
} from '../auth/decorators';
import { Page } from '../common/http/envelope';
import { ParseIdPipe } from '../common/http/parse-id.pipe';
import type { AdminPrincipal, AppPrincipal } from '../common/http/request-context';
import { ApiEnvelope, ApiErrors } from '../common/http/swagger';
import {
  AdminSubscriptionListQuery,
  CancelSubscriptionDto,
  SubscriptionDto,
  SubscriptionListItemDto,
  SubscriptionListQuery,
  withSpringSort,
} from './dto/subscription.dto';
import { toSubscriptionDto, toSubscriptionListItemDto } from './subscription.mapper';
import { SubscriptionsService } from './subscriptions.service';

const ID = {
  name: 'id',
  schema: { type: 'integer' as const, minimum: 1 },
  description: 'The subscription',
};

@ApiTags('Subscriptions')
@Controller('api/v1/subscriptions')
@AppAuth()
export class SubscriptionsController {
  constructor(private readonly subscriptions: SubscriptionsService) {}

  @Get()
  @ApiOperation({
    summary: "The key's mode's subscriptions, newest first",
    description:
      'Filters: status, customerReference. Sort with sort=field,dir (Spring style) or sortBy/order.',
  })
  @ApiEnvelope(SubscriptionListItemDto, { isArray: true })
  @ApiErrors(400)
  async list(
    @CurrentApp() app: AppPrincipal,
    @Query() query: SubscriptionListQuery,
  ): Promise<Page<SubscriptionListItemDto>> {
    const page = await this.subscriptions.list(app, withSpringSort(query), query);
    return new Page(page.items.map(toSubscriptionListItemDto), page.pagination);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One subscription' })
  @ApiParam(ID)
  @ApiEnvelope(SubscriptionDto)
  @ApiErrors(404)
  async get(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) id: number,
  ): Promise<SubscriptionDto> {
    return toSubscriptionDto(await this.subscriptions.get(app, id));
  }

  @Post(':id/pause')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Pause: no renewals, benefits revoked',
    description: 'TRIALING, ACTIVE or PAST_DUE -> PAUSED; anything else is 409 INVALID_STATE.',
  })
  @ApiParam(ID)
  @ApiEnvelope(SubscriptionDto)
  @ApiErrors(404, 409)
  async pause(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) id: number,
  ): Promise<SubscriptionDto> {
    return toSubscriptionDto(await this.subscriptions.pause(app, id));
  }

  @Post(':id/resume')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Resume a paused subscription into the status it would hold now',
    description:
      'TRIALING while its trial is ahead; PAST_DUE if its open invoice is overdue; else ACTIVE (a new period with its renewal invoice starts today if the old one ended meanwhile). Not PAUSED: 409 INVALID_STATE.',
  })
  @ApiParam(ID)
  @ApiEnvelope(SubscriptionDto)
  @ApiErrors(404, 409)
  async resume(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) id: number,
  ): Promise<SubscriptionDto> {
    return toSubscriptionDto(await this.subscriptions.resume(app, id));
  }

  @Post(':id/cancel')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Cancel now, or at the end of the current period',
    description:
      'atPeriodEnd false (default): CANCELED now, benefits revoked, the open invoice voided. true: cancelAtPeriodEnd is set, the status is unchanged, and the subscription is CANCELED at period end with no renewal. Already CANCELED: 409.',
  })
  @ApiParam(ID)
  @ApiEnvelope(SubscriptionDto)
  @ApiErrors(400, 404, 409)
  async cancel(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) id: number,
    @Body() body: CancelSubscriptionDto,
  ): Promise<SubscriptionDto> {
    return toSubscriptionDto(await this.subscriptions.cancel(app, id, body.atPeriodEnd ?? false));
  }
}

@ApiTags('Admin subscriptions')
@Controller('api/v1/admin/subscriptions')
export class AdminSubscriptionsController {
  constructor(private readonly subscriptions: SubscriptionsService) {}

  @Get()
  @AdminAuth('invoices:read')
  @AppScoped()
  @ApiOperation({
    summary:
      'Subscriptions across apps and modes (filters: status, customerReference, applicationId, mode)',
  })
  @ApiEnvelope(SubscriptionDto, { isArray: true })
  @ApiErrors(400)
  async list(
    @Query() query: AdminSubscriptionListQuery,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<Page<SubscriptionDto>> {
    const page = await this.subscriptions.adminList(withSpringSort(query), {
      ...query,
      appIds: scopedAppIds(admin, query.applicationId),
    });
    return new Page(page.items.map(toSubscriptionDto), page.pagination);
  }
}
