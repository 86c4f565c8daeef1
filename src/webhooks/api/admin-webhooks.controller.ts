import { Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';

import {
  AdminAuth,
  AppScoped,
  assertInScope,
  CurrentAdmin,
  scopedAppIds,
} from '../../auth/decorators';
import { Page } from '../../common/http/envelope';
import { ParseIdPipe } from '../../common/http/parse-id.pipe';
import type { AdminPrincipal } from '../../common/http/request-context';
import { ApiEnvelope, ApiErrors } from '../../common/http/swagger';
import { WebhookDeliveriesService } from '../delivery/webhook-deliveries.service';
import { WebhookEndpointsService } from '../endpoints/webhook-endpoints.service';
import {
  AdminDeliveryListQuery,
  AdminEndpointListQuery,
  ResendParkedResultDto,
  WebhookDeliveryDetailDto,
  WebhookDeliveryDto,
} from './dto/webhook-delivery.dto';
import { WebhookEndpointDto } from './dto/webhook-endpoint.dto';
import { toDeliveryDetailDto, toDeliveryDto, toEndpointDto } from './webhook.mapper';

@ApiTags('Admin webhooks')
@Controller('api/v1/admin')
export class AdminWebhooksController {
  constructor(
    private readonly deliveries: WebhookDeliveriesService,
    private readonly endpoints: WebhookEndpointsService,
  ) {}

  @Get('webhook-deliveries')
  @AdminAuth('webhooks:operate')
  @AppScoped()
  @ApiOperation({
    summary: 'Deliveries of every app, filtered by app, mode, endpoint, status or event type',
  })
  @ApiEnvelope(WebhookDeliveryDto, { isArray: true })
  async list(
    @Query() query: AdminDeliveryListQuery,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<Page<WebhookDeliveryDto>> {
    const page = await this.deliveries.list(query, {
      applicationId: query.applicationId,
      appIds: scopedAppIds(admin, query.applicationId),
      mode: query.mode,
      endpointId: query.endpointId,
      status: query.status,
      eventType: query.eventType,
    });
    return new Page(page.items.map(toDeliveryDto), page.pagination);
  }

  @Get('webhook-deliveries/:id')
  @AdminAuth('webhooks:operate')
  @AppScoped()
  @ApiOperation({ summary: 'One delivery with its body and the log of every attempt' })
  @ApiEnvelope(WebhookDeliveryDetailDto)
  @ApiErrors(404)
  async get(
    @Param('id', ParseIdPipe) id: number,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<WebhookDeliveryDetailDto> {
    const { delivery, attempts } = await this.deliveries.detail(id);
    assertInScope(admin, delivery.appId, 'Webhook delivery');
    return toDeliveryDetailDto(delivery, attempts);
  }

  @Post('webhook-deliveries/:id/resend')
  @HttpCode(200)
  @AdminAuth('webhooks:operate')
  @AppScoped()
  @ApiOperation({
    summary: 'Re-send one delivery: same id and body, fresh timestamp and signatures',
  })
  @ApiEnvelope(WebhookDeliveryDto)
  @ApiErrors(404, 409, 429)
  async resend(
    @Param('id', ParseIdPipe) id: number,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<WebhookDeliveryDto> {
    if (admin.appIds) assertInScope(admin, await this.deliveries.appOf(id), 'Webhook delivery');
    return toDeliveryDto(await this.deliveries.resend(id));
  }

  @Get('webhook-endpoints')
  @AdminAuth('webhooks:operate')
  @AppScoped()
  @ApiOperation({ summary: 'Webhook endpoints of every app (never their secrets)' })
  @ApiEnvelope(WebhookEndpointDto, { isArray: true })
  async endpointsList(
    @Query() query: AdminEndpointListQuery,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<Page<WebhookEndpointDto>> {
    const page = await this.endpoints.listAll(query, {
      applicationId: query.applicationId,
      appIds: scopedAppIds(admin, query.applicationId),
      mode: query.mode,
    });
    return new Page(page.items.map(toEndpointDto), page.pagination);
  }

  @Post('webhook-endpoints/:id/resend-parked')
  @HttpCode(200)
  @AdminAuth('webhooks:operate')
  @AppScoped()
  @ApiOperation({
    summary: 'Queue every PARKED delivery of an endpoint again (e.g. after its URL was fixed)',
  })
  @ApiEnvelope(ResendParkedResultDto)
  @ApiErrors(404, 409, 429)
  async resendParked(
    @Param('id', ParseIdPipe) id: number,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<ResendParkedResultDto> {
    if (admin.appIds)
      assertInScope(admin, (await this.endpoints.scopeOf(id)).appId, 'Webhook endpoint');
    return { endpointId: id, resent: await this.deliveries.resendParked(id) };
  }
}
