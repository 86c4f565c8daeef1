import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateIf,
} from 'class-validator';

import { PageQueryDto } from '../../common/http/pagination';
import { OptionalField } from '../../common/http/validation';
import { SETTINGS_BOUNDS } from '../app-settings';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);
const URL_OPTS = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };

export class CreateAppDto {
  @ApiProperty({ example: 'Shop Dhaka' })
  @Transform(trim)
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name: string;
}

export class UpdateAppDto {
  @ApiPropertyOptional({
    enum: ['ACTIVE', 'SUSPENDED'],
    description: 'SUSPENDED refuses every app call with 403 APP_SUSPENDED',
  })
  @OptionalField()
  @IsIn(['ACTIVE', 'SUSPENDED'])
  status?: 'ACTIVE' | 'SUSPENDED';
  @ApiPropertyOptional()
  @OptionalField()
  @Transform(trim)
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;
}

export class AppSettingsDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['ACTIVE', 'SUSPENDED'] }) status: string;
  @ApiProperty({ nullable: true, type: String }) logoUrl: string | null;
  @ApiProperty({ type: 'integer', format: 'int64' }) refundApprovalThresholdMinor: number;
  @ApiProperty() receiptsEnabled: boolean;
  @ApiProperty() dunningEnabled: boolean;
  @ApiProperty({
    enum: ['bn', 'en'],
    description: 'The language of messages to payers whose invoice names no customerLanguage',
  })
  defaultLanguage: 'bn' | 'en';
  @ApiProperty({ type: 'integer', format: 'int64' }) minAmountMinor: number;
  @ApiProperty({ type: 'integer', format: 'int64' }) maxAmountMinor: number;
  @ApiProperty({ type: 'integer' }) paymentExpiryMinutes: number;
  @ApiProperty({ description: 'Comma-separated origins; empty means any https URL' })
  returnUrlAllowlist: string;
  @ApiProperty({ nullable: true, type: String }) defaultSuccessUrl: string | null;
  @ApiProperty({ nullable: true, type: String }) defaultFailUrl: string | null;
  @ApiProperty({ nullable: true, type: String }) defaultCancelUrl: string | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export class CredentialKeyDto {
  @ApiProperty({ enum: ['TEST', 'LIVE'] }) mode: string;
  @ApiProperty({ example: 'pk_test_...' }) apiKey: string;
}

export class IssuedCredentialDto extends CredentialKeyDto {
  @ApiProperty({ example: 'sk_test_...', description: 'Shown only in this response; store it now' })
  apiSecret: string;
}

export class AppDto extends AppSettingsDto {
  @ApiProperty({
    type: [CredentialKeyDto],
    description: 'Keys only; secrets are never shown again',
  })
  credentials: CredentialKeyDto[];
}

export class CreatedAppDto extends AppSettingsDto {
  @ApiProperty({
    type: [IssuedCredentialDto],
    description: 'Both pairs, with secrets shown this once',
  })
  credentials: IssuedCredentialDto[];
}

const b = SETTINGS_BOUNDS;
export class UpdateAppSettingsDto {
  @ApiPropertyOptional({ nullable: true, type: String })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsUrl(URL_OPTS)
  @MaxLength(2000)
  logoUrl?: string | null;
  @ApiPropertyOptional({
    type: 'integer',
    minimum: b.refundApprovalThresholdMinor.min,
    default: b.refundApprovalThresholdMinor.default,
  })
  @OptionalField()
  @IsInt()
  @Min(b.refundApprovalThresholdMinor.min)
  @Max(Number.MAX_SAFE_INTEGER)
  refundApprovalThresholdMinor?: number;
  @ApiPropertyOptional({ default: true }) @OptionalField() @IsBoolean() receiptsEnabled?: boolean;
  @ApiPropertyOptional({ default: true }) @OptionalField() @IsBoolean() dunningEnabled?: boolean;
  @ApiPropertyOptional({ enum: ['bn', 'en'], default: 'bn' })
  @OptionalField()
  @IsIn(['bn', 'en'])
  defaultLanguage?: 'bn' | 'en';
  @ApiPropertyOptional({
    type: 'integer',
    minimum: b.minAmountMinor.min,
    default: b.minAmountMinor.default,
  })
  @OptionalField()
  @IsInt()
  @Min(b.minAmountMinor.min)
  @Max(b.maxAmountMinor.max)
  minAmountMinor?: number;
  @ApiPropertyOptional({
    type: 'integer',
    maximum: b.maxAmountMinor.max,
    default: b.maxAmountMinor.default,
  })
  @OptionalField()
  @IsInt()
  @Min(b.minAmountMinor.min)
  @Max(b.maxAmountMinor.max)
  maxAmountMinor?: number;
  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 1440, default: 30 })
  @OptionalField()
  @IsInt()
  @Min(b.paymentExpiryMinutes.min)
  @Max(b.paymentExpiryMinutes.max)
  paymentExpiryMinutes?: number;
  @ApiPropertyOptional({
    description: 'Comma-separated origins (https://shop.example.com); empty: any https URL',
  })
  @OptionalField()
  @IsString()
  @MaxLength(4000)
  returnUrlAllowlist?: string;
  @ApiPropertyOptional({ nullable: true, type: String })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsUrl(URL_OPTS)
  @MaxLength(2000)
  defaultSuccessUrl?: string | null;
  @ApiPropertyOptional({ nullable: true, type: String })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsUrl(URL_OPTS)
  @MaxLength(2000)
  defaultFailUrl?: string | null;
  @ApiPropertyOptional({ nullable: true, type: String })
  @IsOptional()
  @ValidateIf((_, v) => v !== null)
  @IsUrl(URL_OPTS)
  @MaxLength(2000)
  defaultCancelUrl?: string | null;
}

export const APP_SORT_FIELDS = ['createdAt', 'name', 'id', 'status'] as const;
export class AppListQuery extends PageQueryDto(APP_SORT_FIELDS) {
  @ApiPropertyOptional({ enum: ['ACTIVE', 'SUSPENDED'] })
  @IsOptional()
  @IsIn(['ACTIVE', 'SUSPENDED'])
  status?: 'ACTIVE' | 'SUSPENDED';
}
