import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Query,
  UseGuards,
} from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';

import { AppAuth, CurrentApp, WEBHOOK_ROUTES } from '../../auth/decorators';
import { Page } from '../../common/http/envelope';
import { ParseIdPipe } from '../../common/http/parse-id.pipe';
import type { AppPrincipal } from '../../common/http/request-context';
import { ApiEnvelope, ApiErrors } from '../../common/http/swagger';
import { TEST_EVENT } from '../../events/event-catalogue';
import { Idempotent } from '../../idempotency/idempotency.interceptor';
import { WebhookDeliveriesService } from '../delivery/webhook-deliveries.service';
import { WebhookEndpointsService } from '../endpoints/webhook-endpoints.service';
import { WebhookTargetGuard } from '../security/webhook-target.guard';
import {
  DeliveryListQuery,
  WebhookDeliveryDetailDto,
  WebhookDeliveryDto,
} from './dto/webhook-delivery.dto';
import {
  CreateWebhookEndpointDto,
  DeletedWebhookEndpointDto,
  TestEventSentDto,
  UpdateWebhookEndpointDto,
  WebhookEndpointDto,
  WebhookEndpointListQuery,
  WebhookEndpointWithSecretDto,
} from './dto/webhook-endpoint.dto';
import { toDeliveryDetailDto, toDeliveryDto, toEndpointDto } from './webhook.mapper';

@ApiTags('Webhook endpoints')
@Controller('api/v1/webhook-endpoints')
@AppAuth(WEBHOOK_ROUTES)
export class WebhookEndpointsController {
  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly deliveries: WebhookDeliveriesService,
  ) {}

  @Post()
  @UseGuards(WebhookTargetGuard)
  @Idempotent()
  @ApiOperation({
    summary: "Create a webhook endpoint in the key's mode (at most 5 per mode)",
    description: 'The response carries the signing secret, shown only here and at rotate-secret.',
  })
  @ApiEnvelope(WebhookEndpointWithSecretDto, { status: 201 })
  @ApiErrors(409)
  async create(
    @CurrentApp() app: AppPrincipal,
    @Body() body: CreateWebhookEndpointDto,
  ): Promise<WebhookEndpointWithSecretDto> {
    const { endpoint, secret } = await this.endpoints.create(app, body);
    return { ...toEndpointDto(endpoint), secret };
  }

  @Get()
  @ApiOperation({ summary: "List the webhook endpoints of the key's mode" })
  @ApiEnvelope(WebhookEndpointDto, { isArray: true })
  async list(
    @CurrentApp() app: AppPrincipal,
    @Query() query: WebhookEndpointListQuery,
  ): Promise<Page<WebhookEndpointDto>> {
    const page = await this.endpoints.list(app, query);
    return new Page(page.items.map(toEndpointDto), page.pagination);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a webhook endpoint (never its secret)' })
  @ApiEnvelope(WebhookEndpointDto)
  @ApiErrors(404)
  async get(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) id: number,
  ): Promise<WebhookEndpointDto> {
    return toEndpointDto(await this.endpoints.get(app, id));
  }

  @Patch(':id')
  @UseGuards(WebhookTargetGuard)
  @ApiOperation({
    summary: 'Change url, events, enabled or description',
    description: 'Disabling stops delivery and keeps the secret and history.',
  })
  @ApiEnvelope(WebhookEndpointDto)
  @ApiErrors(404)
  async update(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) id: number,
    @Body() body: UpdateWebhookEndpointDto,
  ): Promise<WebhookEndpointDto> {
    return toEndpointDto(await this.endpoints.update(app, id, body));
  }

  @Delete(':id')
  @ApiOperation({
    summary: 'Delete a webhook endpoint',
    description:
      'Its pending deliveries park with ENDPOINT_DELETED; history is kept for operators.',
  })
  @ApiEnvelope(DeletedWebhookEndpointDto)
  @ApiErrors(404)
  async remove(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) id: number,
  ): Promise<DeletedWebhookEndpointDto> {
    await this.endpoints.remove(app, id);
    return { id, deleted: true };
  }

  @Post(':id/rotate-secret')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Issue a new signing secret',
    description: 'No grace period: the old secret stops verifying at once.',
  })
  @ApiEnvelope(WebhookEndpointWithSecretDto)
  @ApiErrors(404)
  async rotateSecret(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) id: number,
  ): Promise<WebhookEndpointWithSecretDto> {
    const { endpoint, secret } = await this.endpoints.rotateSecret(app, id);
    return { ...toEndpointDto(endpoint), secret };
  }

  @Post(':id/test')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Send a test event to this endpoint',
    description:
      'Records a `webhook_endpoint.test` event delivered to this endpoint alone (never to the others, whatever they subscribe to), signed and retried like any event; watch it in the deliveries. 409 when the endpoint is disabled. At most 10 test events per endpoint per minute (counted across replicas): 429 RATE_LIMITED with Retry-After beyond.',
  })
  @ApiEnvelope(TestEventSentDto)
  @ApiErrors(404, 409)
  async sendTest(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) id: number,
  ): Promise<TestEventSentDto> {
    const eventId = await this.endpoints.sendTestEvent(app, id);
    return { endpointId: id, eventId, type: TEST_EVENT };
  }

  @Get(':id/deliveries')
  @ApiOperation({
    summary:
      'Deliveries to this endpoint (status, attempts, lastError, lastStatusCode, nextAttemptAt)',
  })
  @ApiEnvelope(WebhookDeliveryDto, { isArray: true })
  @ApiErrors(404)
  async deliveriesOf(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) id: number,
    @Query() query: DeliveryListQuery,
  ): Promise<Page<WebhookDeliveryDto>> {
    const page = await this.deliveries.listForEndpoint(app, id, query, {
      status: query.status,
      eventType: query.eventType,
    });
    return new Page(page.items.map(toDeliveryDto), page.pagination);
  }

  @Get(':id/deliveries/:deliveryId')
  @ApiOperation({ summary: 'One delivery with its body and every attempt' })
  @ApiEnvelope(WebhookDeliveryDetailDto)
  @ApiErrors(404)
  async delivery(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) id: number,
    @Param('deliveryId', ParseIdPipe) deliveryId: number,
  ): Promise<WebhookDeliveryDetailDto> {
    const { delivery, attempts } = await this.deliveries.detailForEndpoint(app, id, deliveryId);
    return toDeliveryDetailDto(delivery, attempts);
  }

  @Post(':id/deliveries/:deliveryId/resend')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Re-send one delivery',
    description:
      'Same id and body; fresh X-Webhook-Timestamp and signatures; the retry schedule starts over. 409 INVALID_STATE while an attempt is in flight, for a disabled endpoint, or for UNDELIVERABLE.',
  })
  @ApiEnvelope(WebhookDeliveryDto)
  @ApiErrors(404, 409)
  async resend(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) id: number,
    @Param('deliveryId', ParseIdPipe) deliveryId: number,
  ): Promise<WebhookDeliveryDto> {
    return toDeliveryDto(await this.deliveries.resendForEndpoint(app, id, deliveryId));
  }
}
