import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, Max, Min } from 'class-validator';

import { PageQueryDto, toInt } from '../../../common/http/pagination';
import { OptionalField } from '../../../common/http/validation';
import { EVENT_TYPES } from '../../../events/event-catalogue';
import { DELIVERY_STATUSES } from '../../delivery/delivery-status';

export class EventDeliverySummaryDto {
  @ApiProperty({
    type: 'integer',
    description: 'Delivery id = envelope id / X-Webhook-Id seen by that endpoint',
  })
  id: number;
  @ApiProperty({ type: 'integer', nullable: true }) endpointId: number | null;
  @ApiProperty({ enum: DELIVERY_STATUSES }) status: string;
  @ApiProperty({ type: 'integer' }) attempts: number;
  @ApiProperty({ nullable: true, type: String }) lastError: string | null;
}

export class EventDto {
  @ApiProperty({
    type: 'integer',
    description: 'Id of the recorded event (not the per-endpoint delivery id)',
  })
  id: number;
  @ApiProperty({ example: 'payment.succeeded' }) type: string;
  @ApiProperty({ enum: ['TEST', 'LIVE'] }) mode: string;
  @ApiProperty({ type: 'integer' }) applicationId: number;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The payload sent as envelope data',
  })
  data: Record<string, unknown>;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({
    type: [EventDeliverySummaryDto],
    description: 'One per endpoint it went to; empty until fanned out (about a second)',
  })
  deliveries: EventDeliverySummaryDto[];
}

export const EVENT_SORT_FIELDS = ['createdAt', 'id'] as const;
export class EventListQuery extends PageQueryDto(EVENT_SORT_FIELDS) {
  @ApiPropertyOptional({ enum: EVENT_TYPES })
  @OptionalField()
  @IsIn([...EVENT_TYPES])
  type?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    description:
      'Only events with a greater id (recorded after that event): poll with the newest id seen, sortBy=id and order=asc, as `joma listen` does. A poll that finds nothing new is logged at debug, not info.',
  })
  @OptionalField()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  afterId?: number;
}
