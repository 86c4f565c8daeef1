import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, Min } from 'class-validator';

import { PageQueryDto, toInt } from '../../../common/http/pagination';
import { OptionalField } from '../../../common/http/validation';
import { EVENT_TYPES } from '../../../events/event-catalogue';
import { DELIVERY_STATUSES } from '../../delivery/delivery-status';

export class WebhookDeliveryDto {
  @ApiProperty({
    type: 'integer',
    description: 'The envelope id and X-Webhook-Id of every attempt and re-send',
  })
  id: number;
  @ApiProperty({ type: 'integer', description: 'The recorded event (GET /api/v1/events)' })
  eventId: number;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'null when the mode had no endpoint (UNDELIVERABLE)',
  })
  endpointId: number | null;
  @ApiProperty({ type: 'integer' }) applicationId: number;
  @ApiProperty({ enum: ['TEST', 'LIVE'] }) mode: string;
  @ApiProperty({ example: 'payment.succeeded' }) eventType: string;
  @ApiProperty({ enum: DELIVERY_STATUSES }) status: string;
  @ApiProperty({ type: 'integer' }) attempts: number;
  @ApiProperty({ type: 'integer', nullable: true }) lastStatusCode: number | null;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'HTTP_500',
    description:
      'NO_ENDPOINT_CONFIGURED, LIVE_REQUIRES_HTTPS, URL_SCHEME_NOT_ALLOWED, ENDPOINT_DISABLED, ENDPOINT_DELETED, HTTP_<code>, TIMEOUT: ..., TARGET_NOT_ALLOWED: ..., DNS_FAILED: ..., or a network error code',
  })
  lastError: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) lastAttemptAt: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) nextAttemptAt: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) deliveredAt: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class WebhookAttemptDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ type: 'integer' }) attemptNumber: number;
  @ApiProperty() url: string;
  @ApiProperty({ nullable: true, type: String, description: 'Address connected to' })
  targetAddress: string | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'X-Webhook-Timestamp sent; null when nothing was sent',
  })
  signedTimestamp: number | null;
  @ApiProperty({ format: 'date-time' }) startedAt: string;
  @ApiProperty({ type: 'integer' }) durationMs: number;
  @ApiProperty({ type: 'integer', nullable: true }) statusCode: number | null;
  @ApiProperty({ nullable: true, type: String, description: 'First 1 KiB of the response body' })
  responseExcerpt: string | null;
  @ApiProperty({ nullable: true, type: String }) error: string | null;
}

export class WebhookDeliveryDetailDto extends WebhookDeliveryDto {
  @ApiProperty({ description: 'The exact body sent on every attempt' }) body: string;
  @ApiProperty({ type: [WebhookAttemptDto], description: 'Every attempt, oldest first' })
  attemptLog: WebhookAttemptDto[];
}

export class ResendParkedResultDto {
  @ApiProperty({ type: 'integer' }) endpointId: number;
  @ApiProperty({ type: 'integer', description: 'Parked deliveries queued again' }) resent: number;
}

export const DELIVERY_SORT_FIELDS = ['createdAt', 'id'] as const;

export class DeliveryListQuery extends PageQueryDto(DELIVERY_SORT_FIELDS) {
  @ApiPropertyOptional({ enum: DELIVERY_STATUSES })
  @OptionalField()
  @IsIn([...DELIVERY_STATUSES])
  status?: string;
  @ApiPropertyOptional({ enum: EVENT_TYPES })
  @OptionalField()
  @IsIn([...EVENT_TYPES])
  eventType?: string;
}

export class AdminDeliveryListQuery extends DeliveryListQuery {
  @ApiPropertyOptional({ type: 'integer' })
  @OptionalField()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  applicationId?: number;
  @ApiPropertyOptional({ enum: ['TEST', 'LIVE'] }) @OptionalField() @IsIn(['TEST', 'LIVE']) mode?:
    'TEST' | 'LIVE';
  @ApiPropertyOptional({ type: 'integer' })
  @OptionalField()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  endpointId?: number;
}

export class AdminEndpointListQuery extends PageQueryDto(['createdAt', 'id'] as const) {
  @ApiPropertyOptional({ type: 'integer' })
  @OptionalField()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  applicationId?: number;
  @ApiPropertyOptional({ enum: ['TEST', 'LIVE'] }) @OptionalField() @IsIn(['TEST', 'LIVE']) mode?:
    'TEST' | 'LIVE';
}
