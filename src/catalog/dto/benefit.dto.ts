import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';

import { PageQueryDto, toInt } from '../../common/http/pagination';
import { OptionalField } from '../../common/http/validation';

export class CreateBenefitDto {
  @ApiProperty({
    example: 'premium_support',
    description: 'Unique per app and mode; letters, digits, . _ : -',
  })
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  @Matches(/^[A-Za-z0-9._:-]+$/, { message: 'lookupKey may hold only letters, digits and . _ : -' })
  lookupKey: string;
  @ApiProperty({ example: 'Premium support' })
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name: string;
  @ApiPropertyOptional({ description: 'Free-form text (e.g. JSON) for the app' })
  @OptionalField()
  @IsString()
  @MaxLength(4000)
  metadata?: string;
}

/** The lookup key stays: apps find the benefit by it. */
export class UpdateBenefitDto {
  @ApiPropertyOptional({ example: 'Premium support', maxLength: 200 })
  @OptionalField()
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;
  @ApiPropertyOptional({
    nullable: true,
    type: String,
    maxLength: 4000,
    description: 'Free-form text (e.g. JSON) for the app; null clears it',
  })
  @OptionalField({ nullable: true })
  @IsString()
  @MaxLength(4000)
  metadata?: string | null;
}

export class BenefitDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty() lookupKey: string;
  @ApiProperty() name: string;
  @ApiProperty({ nullable: true, type: String }) metadata: string | null;
  @ApiProperty() active: boolean;
  @ApiProperty({ enum: ['TEST', 'LIVE'] }) mode: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class AdminScopeQuery {
  @ApiProperty({ type: 'integer' })
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  applicationId: number;
  @ApiProperty({ enum: ['TEST', 'LIVE'] }) @IsIn(['TEST', 'LIVE']) mode: 'TEST' | 'LIVE';
}

export const BENEFIT_SORT_FIELDS = ['createdAt', 'lookupKey', 'name', 'id'] as const;
export class BenefitListQuery extends PageQueryDto(BENEFIT_SORT_FIELDS) {}
