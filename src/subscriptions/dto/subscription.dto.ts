import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsOptional, Matches, Min } from 'class-validator';

import { PageQueryDto, toInt } from '../../common/http/pagination';
import { CUSTOMER_REFERENCE } from '../../customers';
import { SUBSCRIPTION_STATUSES, type SubscriptionStatus } from '../subscription-state';

export const SUBSCRIPTION_SORT_FIELDS = ['createdAt', 'nextBillingDate', 'id'] as const;
const SORT = new RegExp(`^(${SUBSCRIPTION_SORT_FIELDS.join('|')})(,(asc|desc))?$`);

export class SubscriptionListItemDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ enum: SUBSCRIPTION_STATUSES, example: 'TRIALING' }) status: SubscriptionStatus;
  @ApiProperty({ type: 'integer' }) productId: number;
  @ApiProperty({ type: 'integer' }) priceId: number;
  @ApiProperty({ type: 'string', format: 'date', example: '2026-11-25' }) startDate: string;
  @ApiProperty({
    type: 'string',
    format: 'date',
    nullable: true,
    description: 'End of the current period (Asia/Dhaka date); null before the first period starts',
  })
  nextBillingDate: string | null;
  @ApiProperty() cancelAtPeriodEnd: boolean;
  @ApiProperty({ enum: ['TEST', 'LIVE'] }) mode: 'TEST' | 'LIVE';
  @ApiProperty({ type: 'string', format: 'date-time' }) createdAt: string;
}

export class SubscriptionDto extends SubscriptionListItemDto {
  @ApiProperty({ example: 'cust_42' }) customerReference: string;
  @ApiProperty({
    type: 'string',
    format: 'date',
    nullable: true,
    description: 'Start of the paid period (Asia/Dhaka date)',
  })
  currentPeriodStart: string | null;
  @ApiProperty({ type: 'string', format: 'date', nullable: true }) trialEndDate: string | null;
  @ApiProperty({ type: 'string', format: 'date-time', nullable: true }) canceledAt: string | null;
  @ApiProperty({ type: 'integer', format: 'int64' }) amountMinor: number;
  @ApiProperty({ example: 'BDT' }) currency: string;
  @ApiProperty({ enum: ['DAY', 'WEEK', 'MONTH', 'YEAR'] }) interval: string;
  @ApiProperty({ type: 'integer', minimum: 1 }) intervalCount: number;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The invoice the subscription waits to be paid, if any',
  })
  openInvoiceId: number | null;
  @ApiProperty({ type: 'string', format: 'date-time' }) updatedAt: string;
}

export class SubscriptionListQuery extends PageQueryDto(SUBSCRIPTION_SORT_FIELDS) {
  @ApiPropertyOptional({ enum: SUBSCRIPTION_STATUSES })
  @IsOptional()
  @IsIn([...SUBSCRIPTION_STATUSES])
  status?: SubscriptionStatus;

  @ApiPropertyOptional({ pattern: CUSTOMER_REFERENCE.source })
  @IsOptional()
  @Matches(CUSTOMER_REFERENCE)
  customerReference?: string;

  @ApiPropertyOptional({
    description: `Spring-style sort: field[,asc|desc], field one of ${SUBSCRIPTION_SORT_FIELDS.join(', ')} (takes precedence over sortBy/order)`,
    example: 'createdAt,desc',
    pattern: SORT.source,
  })
  @IsOptional()
  @Matches(SORT, {
    message: `sort must be field[,asc|desc] with field one of ${SUBSCRIPTION_SORT_FIELDS.join(', ')}`,
  })
  sort?: string;
}

export class AdminSubscriptionListQuery extends SubscriptionListQuery {
  @ApiPropertyOptional({ type: 'integer', minimum: 1 })
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  applicationId?: number;

  @ApiPropertyOptional({ enum: ['TEST', 'LIVE'] })
  @IsOptional()
  @IsIn(['TEST', 'LIVE'])
  mode?: 'TEST' | 'LIVE';
}

export class CancelSubscriptionDto {
  @ApiPropertyOptional({
    default: false,
    description: 'true: cancel when the current period ends (no renewal); false: now',
  })
  @IsOptional()
  @IsBoolean()
  atPeriodEnd?: boolean;
}

/** `sort=field,dir` applied over sortBy/order. */
export function withSpringSort<
  Q extends { sort?: string; sortBy?: string; order?: 'asc' | 'desc' },
>(q: Q): Q {
  if (!q.sort) return q;
  const [field, dir] = q.sort.split(',');
  return { ...q, sortBy: field, order: (dir as 'asc' | 'desc' | undefined) ?? 'desc' };
}
