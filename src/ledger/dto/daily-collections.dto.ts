import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsInt, Max, Min } from 'class-validator';

import { toInt } from '../../common/http/pagination';
import { OptionalField } from '../../common/http/validation';

export const MAX_REPORT_DAYS = 90;

export class DailyCollectionsQuery {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_REPORT_DAYS,
    default: 30,
    description: 'How many Asia/Dhaka days, ending today (today included).',
  })
  @OptionalField()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(MAX_REPORT_DAYS)
  days?: number;
}

export class DailyCollectionDto {
  @ApiProperty({ format: 'date', example: '2026-11-29', description: 'An Asia/Dhaka calendar day' })
  date: string;
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    example: 1250000,
    description:
      'Taka collected that day in minor units (poisha): the captured amount of every payment that succeeded that day (refunds later do not change it).',
  })
  collectedMinor: number;
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    minimum: 0,
    example: 50000,
    description:
      "Taka given back that day in minor units (poisha): the amount of every refund that reached SUCCEEDED that day, by when it succeeded (whatever day its payment was captured or the refund was asked for); a PENDING or FAILED refund counts nowhere. From the ledger's refund postings.",
  })
  refundedMinor: number;
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    example: 1200000,
    description:
      'collectedMinor - refundedMinor: negative on a day that gave back more than it collected.',
  })
  netMinor: number;
  @ApiProperty({ type: 'integer', example: 4, description: 'How many payments succeeded that day' })
  payments: number;
}
