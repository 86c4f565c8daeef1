import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsDateString,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';

import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE, toBool, toInt } from '../../common/http/pagination';
import { EXCEPTION_CLASSES, type ExceptionClass } from '../reconciliation.repository';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export class PartitionQuery {
  @ApiProperty({ type: 'integer', minimum: 1 })
  @Transform(toInt)
  @IsInt()
  @Min(1)
  applicationId: number;

  @ApiProperty({ enum: ['TEST', 'LIVE'] })
  @IsIn(['TEST', 'LIVE'])
  mode: 'TEST' | 'LIVE';
}

export class SettlementImportDto {
  @ApiProperty({ example: 'sandbox', description: 'The gateway whose settlement file this is' })
  @IsString()
  @MinLength(1)
  @MaxLength(50)
  gateway: string;

  @ApiProperty({
    description:
      'The CSV: a header row with gateway_txn_id, amount_minor, currency, transaction_time (ISO-8601 with a zone) and optionally fee_minor, settled_on',
    example:
      'gateway_txn_id,amount_minor,currency,transaction_time,fee_minor\nSBX123,150000,BDT,2026-11-24T10:00:00+06:00,3000',
  })
  @IsString()
  @MinLength(1)
  csv: string;
}

export class RejectionDto {
  @ApiProperty({ type: 'integer', description: '1-based physical line; the header is line 1' })
  line: number;
  @ApiProperty() reason: string;
}

export class SettlementImportResultDto {
  @ApiProperty({ type: 'integer' }) importId: number;
  @ApiProperty({ type: 'integer', description: 'Data lines read (the header not counted)' })
  lines: number;
  @ApiProperty({ type: 'integer' }) imported: number;
  @ApiProperty({ type: 'integer', description: 'Lines already imported before (skipped)' })
  duplicates: number;
  @ApiProperty({ type: [RejectionDto] }) rejected: RejectionDto[];
}

export class RunQuery {
  @ApiProperty({ example: '2026-11-24', description: 'A calendar day in Asia/Dhaka' })
  @Matches(DATE, { message: 'period must be a date (YYYY-MM-DD)' })
  @IsDateString({ strict: true }, { message: 'period must be a real calendar date (YYYY-MM-DD)' })
  period: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, description: 'Default: every app' })
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  applicationId?: number;

  @ApiPropertyOptional({ enum: ['TEST', 'LIVE'], description: 'Default: both modes' })
  @IsOptional()
  @IsIn(['TEST', 'LIVE'])
  mode?: 'TEST' | 'LIVE';

  @ApiPropertyOptional({
    type: 'boolean',
    default: false,
    description: "true: first pull the gateways' own settlement reports for the day",
  })
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  fetch?: boolean;
}

class Paged {
  @ApiPropertyOptional({ type: 'integer', minimum: 0, default: 0 })
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(10_000)
  page?: number;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    maximum: MAX_PAGE_SIZE,
    default: DEFAULT_PAGE_SIZE,
  })
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(MAX_PAGE_SIZE)
  size?: number;

  @ApiPropertyOptional({
    description:
      'pagination.nextCursor of the previous page: pages by keyset at any depth (page is then ignored)',
  })
  @IsOptional()
  @IsString()
  @MaxLength(100)
  @Matches(/^[A-Za-z0-9_-]+$/, { message: 'cursor must be a pagination.nextCursor value' })
  cursor?: string;
}

export class RunListQuery extends Paged {
  @ApiPropertyOptional({ example: '2026-11-24' })
  @IsOptional()
  @Matches(DATE, { message: 'period must be a date (YYYY-MM-DD)' })
  @IsDateString({ strict: true }, { message: 'period must be a real calendar date (YYYY-MM-DD)' })
  period?: string;
}

export class ItemListQuery extends Paged {
  @ApiPropertyOptional({ enum: EXCEPTION_CLASSES })
  @IsOptional()
  @IsIn([...EXCEPTION_CLASSES])
  class?: ExceptionClass;
}

export class ReconciliationRunDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ type: 'integer', nullable: true, description: 'null: every app' })
  applicationId: number | null;
  @ApiProperty({
    type: 'string',
    enum: ['TEST', 'LIVE', null],
    nullable: true,
    description: 'null: both modes',
  })
  mode: 'TEST' | 'LIVE' | null;
  @ApiProperty({ type: 'string', format: 'date' }) period: string;
  @ApiProperty({ type: 'integer' }) matched: number;
  @ApiProperty({ type: 'integer' }) missingInSettlement: number;
  @ApiProperty({ type: 'integer' }) missingInternal: number;
  @ApiProperty({ type: 'integer' }) amountMismatch: number;
  @ApiProperty({ type: 'integer' }) deferred: number;
  @ApiProperty({ description: 'false on a FAILED run (nothing was checked)' })
  ledgerBalanced: boolean;
  @ApiProperty({
    enum: ['COMPLETED', 'FAILED'],
    description:
      'FAILED: the nightly job could not complete the run (failureReason says why); its counts are 0',
  })
  status: 'COMPLETED' | 'FAILED';
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Why a FAILED run failed; else null',
  })
  failureReason: string | null;
  @ApiProperty({ enum: ['api', 'nightly'] }) trigger: string;
  @ApiProperty({ type: 'string', format: 'date-time' }) createdAt: string;
}

export class ReconciliationItemDto {
  @ApiProperty({ enum: EXCEPTION_CLASSES }) class: ExceptionClass;
  @ApiProperty({ type: 'integer', nullable: true }) paymentId: number | null;
  @ApiProperty() gateway: string;
  @ApiProperty({ type: 'string', nullable: true }) gatewayTxnId: string | null;
  @ApiProperty({ type: 'integer', format: 'int64', nullable: true }) internalAmountMinor:
    number | null;
  @ApiProperty({ type: 'integer', format: 'int64', nullable: true }) settlementAmountMinor:
    number | null;
  @ApiProperty({ type: 'integer' }) applicationId: number;
  @ApiProperty({ enum: ['TEST', 'LIVE'] }) mode: 'TEST' | 'LIVE';
}
