import { Controller, Get, Query, Req } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';

import { AppAuth, CurrentApp, WEBHOOK_ROUTES } from '../../auth/decorators';
import { Page } from '../../common/http/envelope';
import { logAtDebug } from '../../common/http/logging';
import type { AppPrincipal } from '../../common/http/request-context';
import { ApiEnvelope } from '../../common/http/swagger';
import { EventDto, EventListQuery } from './dto/event.dto';
import { toEventDto } from './webhook.mapper';
import { WebhookEventsService } from './webhook-events.service';

@ApiTags('Events')
@Controller('api/v1/events')
@AppAuth(WEBHOOK_ROUTES)
export class EventsController {
  constructor(private readonly events: WebhookEventsService) {}

  @Get()
  @ApiOperation({
    summary: "Recorded events of the key's mode, newest first",
    description:
      'Every event is kept, including those of a mode without endpoints (their delivery is UNDELIVERABLE / NO_ENDPOINT_CONFIGURED).',
  })
  @ApiEnvelope(EventDto, { isArray: true })
  async list(
    @CurrentApp() app: AppPrincipal,
    @Query() query: EventListQuery,
    @Req() req: object,
  ): Promise<Page<EventDto>> {
    const page = await this.events.list(app, query, { type: query.type, afterId: query.afterId });
    // A poll for what is new that found nothing (joma listen, every 2 s): its log line at debug.
    if (query.afterId !== undefined && page.items.length === 0) logAtDebug(req);
    return new Page(
      page.items.map((x) => toEventDto(x.event, x.deliveries)),
      page.pagination,
    );
  }
}
