import type { EventRecord } from '../../events';
import type { WebhookAttempt } from '../delivery/webhook-attempt.entity';
import type { WebhookDelivery } from '../delivery/webhook-delivery.entity';
import type { WebhookEndpoint } from '../endpoints/webhook-endpoint.entity';
import type { EventDeliverySummaryDto, EventDto } from './dto/event.dto';
import type {
  WebhookAttemptDto,
  WebhookDeliveryDetailDto,
  WebhookDeliveryDto,
} from './dto/webhook-delivery.dto';
import type { WebhookEndpointDto } from './dto/webhook-endpoint.dto';

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function toEndpointDto(e: WebhookEndpoint): WebhookEndpointDto {
  return {
    id: e.id,
    applicationId: e.appId,
    mode: e.mode,
    url: e.url,
    description: e.description,
    events: e.events,
    enabled: e.enabled,
    legacy: e.legacy,
    secretRotatedAt: iso(e.secretRotatedAt),
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
}

export function toDeliveryDto(d: WebhookDelivery): WebhookDeliveryDto {
  return {
    id: d.id,
    eventId: d.eventId,
    endpointId: d.endpointId,
    applicationId: d.appId,
    mode: d.mode,
    eventType: d.eventType,
    status: d.status,
    attempts: d.attempts,
    lastStatusCode: d.lastStatusCode,
    lastError: d.lastError,
    lastAttemptAt: iso(d.lastAttemptAt),
    nextAttemptAt: iso(d.nextAttemptAt),
    deliveredAt: iso(d.deliveredAt),
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
  };
}

export function toAttemptDto(a: WebhookAttempt): WebhookAttemptDto {
  return {
    id: a.id,
    attemptNumber: a.attemptNumber,
    url: a.url,
    targetAddress: a.targetAddress,
    signedTimestamp: a.signedTimestamp,
    startedAt: a.startedAt.toISOString(),
    durationMs: a.durationMs,
    statusCode: a.statusCode,
    responseExcerpt: a.responseExcerpt,
    error: a.error,
  };
}

export function toDeliveryDetailDto(
  d: WebhookDelivery,
  attempts: WebhookAttempt[],
): WebhookDeliveryDetailDto {
  return { ...toDeliveryDto(d), body: d.body, attemptLog: attempts.map(toAttemptDto) };
}

export function toEventDto(e: EventRecord, deliveries: WebhookDelivery[]): EventDto {
  return {
    id: e.id,
    type: e.type,
    mode: e.mode,
    applicationId: e.appId,
    data: e.data,
    createdAt: e.createdAt.toISOString(),
    deliveries: deliveries.map((d): EventDeliverySummaryDto => ({
      id: d.id,
      endpointId: d.endpointId,
      status: d.status,
      attempts: d.attempts,
      lastError: d.lastError,
    })),
  };
}
