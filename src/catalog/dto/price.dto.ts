import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { IsIn, IsInt, Max, Min } from 'class-validator';

import { OptionalField } from '../../common/http/validation';
import { CurrencyField, MinorAmount } from '../../common/money/money.dto';
import {
  MAX_INTERVAL_COUNT,
  MAX_TRIAL_DAYS,
  PRICE_INTERVALS,
  PRICE_TYPES,
  PriceInterval,
  PriceType,
} from '../price-terms';

const MAX_COUNT = Math.max(...Object.values(MAX_INTERVAL_COUNT));

export class CreatePriceDto {
  @ApiProperty({ enum: PRICE_TYPES, enumName: 'PriceType', example: 'RECURRING' })
  @IsIn([...PRICE_TYPES])
  type: PriceType;

  @MinorAmount({ description: 'Price in minor units (poisha), 1..2^53-1; 100 = ৳1.00' })
  amountMinor: number;

  @CurrencyField()
  currency?: string;

  @ApiPropertyOptional({
    enum: PRICE_INTERVALS,
    enumName: 'PriceInterval',
    description:
      'Billing period unit of a RECURRING price (required there); not allowed for ONE_TIME',
  })
  @OptionalField()
  @IsIn([...PRICE_INTERVALS])
  interval?: PriceInterval;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_COUNT,
    example: 1,
    description:
      'Required for RECURRING (>= 1); the period is interval x intervalCount, at most three years (DAY 1095, WEEK 156, MONTH 36, YEAR 3)',
  })
  @OptionalField()
  @IsInt()
  @Min(1)
  @Max(MAX_COUNT)
  intervalCount?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: MAX_TRIAL_DAYS,
    default: 0,
    description: 'RECURRING only; free days before the first charge',
  })
  @OptionalField()
  @IsInt()
  @Min(0)
  @Max(MAX_TRIAL_DAYS)
  trialDays?: number;
}

/**
 * The document's two shapes of CreatePriceDto (the ValidationPipe still
 * validates CreatePriceDto; the service enforces the per-type rules): a
 * ONE_TIME price takes no billing period, a RECURRING one requires it. The
 * create route documents its body as `oneOf` these, discriminated by `type`,
 * so generated clients get a union instead of all-optional fields.
 */
export class OneTimePriceRequest extends OmitType(CreatePriceDto, [
  'type',
  'interval',
  'intervalCount',
  'trialDays',
] as const) {
  @ApiProperty({ enum: ['ONE_TIME'] }) type: 'ONE_TIME';
}

export class RecurringPriceRequest extends OmitType(CreatePriceDto, [
  'type',
  'interval',
  'intervalCount',
] as const) {
  @ApiProperty({ enum: ['RECURRING'] }) type: 'RECURRING';

  @ApiProperty({
    enum: PRICE_INTERVALS,
    enumName: 'PriceInterval',
    description: 'Billing period unit',
  })
  interval: PriceInterval;

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    maximum: MAX_COUNT,
    example: 1,
    description:
      'The period is interval x intervalCount, at most three years (DAY 1095, WEEK 156, MONTH 36, YEAR 3)',
  })
  intervalCount: number;
}

export class PriceDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ type: 'integer' }) productId: number;
  @ApiProperty({ enum: PRICE_TYPES, enumName: 'PriceType' }) type: PriceType;
  @ApiProperty({ type: 'integer', format: 'int64', example: 150000 }) amountMinor: number;
  @ApiProperty({ example: 'BDT' }) currency: string;
  @ApiProperty({
    enum: PRICE_INTERVALS,
    enumName: 'PriceInterval',
    nullable: true,
    description: 'Billing period unit of a RECURRING price; null for ONE_TIME',
  })
  interval: PriceInterval | null;
  @ApiProperty({ type: 'integer', nullable: true, description: 'null for ONE_TIME' })
  intervalCount: number | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'null for ONE_TIME; 0..730 for RECURRING',
  })
  trialDays: number | null;
  @ApiProperty({ description: 'Only active prices can be purchased' }) active: boolean;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}
