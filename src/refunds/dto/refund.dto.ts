import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, MaxLength, Min, MinLength } from 'class-validator';

import { DateRangeField, SearchField } from '../../common/http/list-filters';
import { PageQueryDto, toInt } from '../../common/http/pagination';
import { OptionalField } from '../../common/http/validation';
import { MinorAmount } from '../../common/money/money.dto';
import { REFUND_STATUSES, type RefundStatus } from '../refund.entity';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

export class CreateRefundDto {
  @MinorAmount({
    optional: true,
    description:
      'Default (field left out): all that is still refundable. null is 400 VALIDATION_FAILED',
  })
  amountMinor?: number;

  @ApiPropertyOptional({ minLength: 1, maxLength: 500 })
  @OptionalField()
  @IsString()
  @MinLength(1)
  @MaxLength(500)
  reason?: string;
}

export class RefundDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ type: 'integer' }) paymentId: number;
  @ApiProperty({ type: 'integer', nullable: true }) invoiceId: number | null;
  @ApiProperty({ type: 'integer', format: 'int64' }) amountMinor: number;
  @ApiProperty({ example: 'BDT' }) currency: string;
  @ApiProperty({ enum: REFUND_STATUSES }) status: RefundStatus;
  @ApiProperty({ type: 'string', nullable: true }) reason: string | null;
  @ApiProperty({
    description:
      "Above the app's refundApprovalThresholdMinor: PENDING until an operator approves or rejects it",
  })
  approvalRequired: boolean;
  @ApiProperty({
    description:
      'true: the gateway has no refund call; an operator pays it back outside Joma and completes it (POST /api/v1/admin/refunds/{id}/complete). It stays PENDING until then: never sent, never expired',
  })
  manual: boolean;
  @ApiProperty({
    type: 'string',
    nullable: true,
    description:
      "The gateway's id of the refund; on a manual refund, the reference the operator gave when completing it",
  })
  gatewayRefundId: string | null;
  @ApiProperty({ type: 'string', nullable: true }) failureReason: string | null;
  @ApiProperty({ enum: ['TEST', 'LIVE'] }) mode: 'TEST' | 'LIVE';
  @ApiProperty({ type: 'string', format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: 'string', format: 'date-time' }) updatedAt: string;
}

/** POST /api/v1/admin/refunds/{id}/complete: what the operator got when paying a manual refund back. */
export class CompleteManualRefundDto {
  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 64,
    description:
      "The gateway's (or bank's) reference of the money sent back, as the operator got it (trimmed); kept as the refund's gatewayRefundId",
  })
  @OptionalField()
  @Transform(trim)
  @IsString()
  @MinLength(1)
  @MaxLength(64)
  gatewayRefundId?: string;

  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 500,
    description: 'A note for the audit log (how and when the customer was paid back)',
  })
  @OptionalField()
  @IsString()
  @MinLength(1)
  @MaxLength(500)
  note?: string;
}

export const REFUND_SORT_FIELDS = ['createdAt', 'id'] as const;

/** What `q` finds on the refund lists. */
const REFUND_SEARCH =
  'Finds refunds of a payment named by its id, reference (`pay_...`) or gateway transaction id (as given or in upper case), refunds on an invoice named by its number (`INV-000042`), and refunds of a customer named by reference or email (exact, any letter case) or phone (any form customerPhone takes). Combines with the other filters.';

const AWAITING_APPROVAL = {
  enum: ['true', 'false'],
  description:
    'true: only refunds waiting for an operator (PENDING, approvalRequired, not yet approved); false: all others.',
};

/** GET /api/v1/refunds: the refunds of the key's app and mode. */
export class RefundListQuery extends PageQueryDto(REFUND_SORT_FIELDS) {
  @ApiPropertyOptional({ enum: REFUND_STATUSES })
  @IsOptional()
  @IsIn([...REFUND_STATUSES])
  status?: RefundStatus;

  @ApiPropertyOptional(AWAITING_APPROVAL)
  @IsOptional()
  @IsIn(['true', 'false'])
  awaitingApproval?: 'true' | 'false';

  @DateRangeField('from') from?: string;
  @DateRangeField('to') to?: string;
  @SearchField(REFUND_SEARCH) q?: string;
}

export class AdminRefundListQuery extends PageQueryDto(REFUND_SORT_FIELDS) {
  @ApiPropertyOptional({ enum: REFUND_STATUSES })
  @IsOptional()
  @IsIn([...REFUND_STATUSES])
  status?: RefundStatus;

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

  @ApiPropertyOptional(AWAITING_APPROVAL)
  @IsOptional()
  @IsIn(['true', 'false'])
  awaitingApproval?: 'true' | 'false';

  @DateRangeField('from', { instants: true }) from?: string;
  @DateRangeField('to', { instants: true }) to?: string;
  @SearchField(REFUND_SEARCH) q?: string;
}
