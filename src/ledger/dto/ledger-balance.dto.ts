import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsOptional, Min } from 'class-validator';

import { toInt } from '../../common/http/pagination';
import { LEDGER_ACCOUNTS } from '../ledger-postings';

export class LedgerBalanceDto {
  @ApiProperty({ enum: LEDGER_ACCOUNTS }) account: string;
  @ApiProperty({ type: 'integer', format: 'int64' }) debitMinor: number;
  @ApiProperty({ type: 'integer', format: 'int64' }) creditMinor: number;
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    description:
      'debitMinor - creditMinor (merchant_payable is negative while money is owed to the merchant); the rows sum to 0',
  })
  balanceMinor: number;
}

export class LedgerBalanceQuery {
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
}
