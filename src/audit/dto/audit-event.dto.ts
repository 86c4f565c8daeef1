import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsDateString, IsInt, IsString, MaxLength, Min } from 'class-validator';

import { PageQueryDto, toInt } from '../../common/http/pagination';
import { OptionalField } from '../../common/http/validation';

export class AuditEventDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ type: 'integer', nullable: true, description: 'null for lock-outs' })
  actorUserId: number | null;
  @ApiProperty({ type: String, nullable: true }) actorEmail: string | null;
  @ApiProperty({ example: 'admin_user.updated' }) action: string;
  @ApiProperty({ example: 'admin_user' }) targetType: string;
  @ApiProperty({ type: String, nullable: true }) targetId: string | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'The changed fields before (never a secret)',
  })
  before: Record<string, unknown> | null;
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'The changed fields after (never a secret)',
  })
  after: Record<string, unknown> | null;
  @ApiProperty({ type: String, nullable: true }) clientAddress: string | null;
  @ApiProperty({ type: String, nullable: true }) requestId: string | null;
}

export class AuditEventQuery extends PageQueryDto(['createdAt'] as const) {
  @ApiPropertyOptional({ type: 'integer', minimum: 1 })
  @OptionalField()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  actorUserId?: number;

  @ApiPropertyOptional({ example: 'app.credentials_rotated' })
  @OptionalField()
  @IsString()
  @MaxLength(100)
  action?: string;

  @ApiPropertyOptional({ example: 'app' })
  @OptionalField()
  @IsString()
  @MaxLength(100)
  targetType?: string;

  @ApiPropertyOptional()
  @OptionalField()
  @IsString()
  @MaxLength(100)
  targetId?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'At or after this instant' })
  @OptionalField()
  @IsDateString({ strict: true })
  from?: string;

  @ApiPropertyOptional({ format: 'date-time', description: 'Before this instant' })
  @OptionalField()
  @IsDateString({ strict: true })
  to?: string;
}
