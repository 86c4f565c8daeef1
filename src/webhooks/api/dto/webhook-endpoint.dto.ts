import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsString,
  MaxLength,
} from 'class-validator';

import { PageQueryDto } from '../../../common/http/pagination';
import { OptionalField } from '../../../common/http/validation';
import { EVENT_TYPES } from '../../../events/event-catalogue';
import { ALL_EVENTS } from '../../endpoints/webhook-endpoint.entity';
import { MAX_URL_LENGTH } from '../../security/url-policy';

const EVENT_CHOICES = [ALL_EVENTS, ...EVENT_TYPES];
const EVENTS_DOC =
  '["*"] for every catalogued type, including types added later; or an explicit list of types, which never grows on its own';

export class CreateWebhookEndpointDto {
  @ApiProperty({
    example: 'https://shop.example.com/webhooks/joma',
    maxLength: MAX_URL_LENGTH,
    description:
      'LIVE: https only (400 WEBHOOK_URL_REQUIRES_TLS). TEST: schemes in WEBHOOK_TEST_ALLOWED_SCHEMES. Private, loopback and link-local targets are refused unless WEBHOOK_ALLOW_PRIVATE_TARGETS=true (400 WEBHOOK_URL_NOT_ALLOWED).',
  })
  @IsString()
  @MaxLength(MAX_URL_LENGTH)
  url: string;

  @ApiProperty({
    type: [String],
    example: ['payment.succeeded', 'payment.expired'],
    description: EVENTS_DOC,
    enum: EVENT_CHOICES,
    isArray: true,
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(EVENT_CHOICES.length)
  @IsIn(EVENT_CHOICES, {
    each: true,
    message: 'each entry of events must be "*" or a catalogued event type',
  })
  events: string[];

  @ApiPropertyOptional({ maxLength: 500, example: 'Order fulfilment' })
  @OptionalField()
  @IsString()
  @MaxLength(500)
  description?: string;

  @ApiPropertyOptional({
    default: true,
    description: 'Disabled endpoints receive nothing; their secret and history are kept',
  })
  @OptionalField()
  @IsBoolean()
  enabled?: boolean;
}

export class UpdateWebhookEndpointDto {
  @ApiPropertyOptional({ maxLength: MAX_URL_LENGTH, description: 'Same rules as at creation' })
  @OptionalField()
  @IsString()
  @MaxLength(MAX_URL_LENGTH)
  url?: string;

  @ApiPropertyOptional({
    type: [String],
    description: EVENTS_DOC,
    enum: EVENT_CHOICES,
    isArray: true,
  })
  @OptionalField()
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(EVENT_CHOICES.length)
  @IsIn(EVENT_CHOICES, {
    each: true,
    message: 'each entry of events must be "*" or a catalogued event type',
  })
  events?: string[];

  @ApiPropertyOptional({ maxLength: 500, description: 'An empty string clears it' })
  @OptionalField()
  @IsString()
  @MaxLength(500)
  description?: string;

  @ApiPropertyOptional()
  @OptionalField()
  @IsBoolean()
  enabled?: boolean;
}

export class WebhookEndpointDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ type: 'integer' }) applicationId: number;
  @ApiProperty({ enum: ['TEST', 'LIVE'] }) mode: string;
  @ApiProperty() url: string;
  @ApiProperty({ nullable: true, type: String }) description: string | null;
  @ApiProperty({ type: [String], description: EVENTS_DOC }) events: string[];
  @ApiProperty() enabled: boolean;
  @ApiProperty({
    description:
      'Carried over from the legacy single webhook URL (unvalidated); rotate its secret to obtain one',
  })
  legacy: boolean;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) secretRotatedAt:
    string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class WebhookEndpointWithSecretDto extends WebhookEndpointDto {
  @ApiProperty({
    example: 'whsec_3q2+7w...',
    description:
      'Signing secret, shown only in this response. HMAC key = this string as UTF-8. Store it now.',
  })
  secret: string;
}

export class TestEventSentDto {
  @ApiProperty({ type: 'integer', description: 'The endpoint the event goes to' })
  endpointId: number;
  @ApiProperty({ type: 'integer', description: 'The recorded event (GET /events shows it)' })
  eventId: number;
  @ApiProperty({ example: 'webhook_endpoint.test' }) type: string;
}

export class DeletedWebhookEndpointDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ example: true }) deleted: boolean;
}

export const WEBHOOK_ENDPOINT_SORT_FIELDS = ['createdAt', 'id'] as const;
export class WebhookEndpointListQuery extends PageQueryDto(WEBHOOK_ENDPOINT_SORT_FIELDS) {}
