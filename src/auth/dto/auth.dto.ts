import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsEmail,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';

import { PageQueryDto } from '../../common/http/pagination';
import { OptionalField } from '../../common/http/validation';
import { USER_SORT_FIELDS } from '../admin-users.service';
import { Permission, PERMISSIONS } from '../permissions';

export class ChangePasswordDto {
  @ApiProperty() @IsString() @MaxLength(1024) currentPassword: string;
  @ApiProperty({ minLength: 12, maxLength: 1024 })
  @IsString()
  @MinLength(12)
  @MaxLength(1024)
  newPassword: string;
}

export class SetPasswordDto {
  @ApiProperty({ minLength: 12, maxLength: 1024 })
  @IsString()
  @MinLength(12)
  @MaxLength(1024)
  newPassword: string;
}

export class LoginDto {
  @ApiProperty({ example: 'admin@example.com' }) @IsString() @MaxLength(320) email: string;
  @ApiProperty({ example: 'correct horse battery staple' })
  @IsString()
  @MaxLength(1024)
  password: string;
}

export class CurrentUserDto {
  @ApiProperty({ type: 'integer' }) userId: number;
  @ApiProperty() email: string;
  @ApiProperty() name: string;
  @ApiProperty() superAdmin: boolean;
  @ApiProperty({ type: [String], enum: PERMISSIONS }) permissions: string[];
  @ApiProperty({
    type: 'array',
    items: { type: 'integer' },
    nullable: true,
    description:
      "The apps this user may see and act on (a merchant's own staff); null = every app (decisions section 15).",
  })
  appIds: number[] | null;
}

export class SessionDto extends CurrentUserDto {
  @ApiProperty() token: string;
  @ApiProperty({ example: 'Bearer' }) tokenType: string;
  @ApiProperty({ format: 'date-time' }) expiresAt: string;
}

export class AdminUserDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty() email: string;
  @ApiProperty() name: string;
  @ApiProperty({ enum: ['ACTIVE', 'DISABLED'] }) status: string;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) lastLoginAt: string | null;
  @ApiProperty() superAdmin: boolean;
  @ApiProperty({ type: [String], enum: PERMISSIONS }) permissions: string[];
  @ApiProperty({
    type: 'array',
    items: { type: 'integer' },
    nullable: true,
    description:
      "The apps this user may see and act on (a merchant's own staff); null = every app (decisions section 15).",
  })
  appIds: number[] | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
}

export class CreateAdminUserDto {
  @ApiProperty() @IsEmail() @MaxLength(320) email: string;
  @ApiProperty() @IsString() @MinLength(1) @MaxLength(200) name: string;
  @ApiProperty({ minLength: 12 }) @IsString() @MinLength(12) @MaxLength(1024) password: string;
  @ApiPropertyOptional({ default: false }) @OptionalField() @IsBoolean() superAdmin?: boolean;
  @ApiPropertyOptional({ type: [String], enum: PERMISSIONS })
  @OptionalField()
  @IsArray()
  @ArrayUnique()
  @IsIn(PERMISSIONS, { each: true })
  permissions?: Permission[];
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'integer', minimum: 1 },
    nullable: true,
    maxItems: 100,
    description:
      'Scope the user to these apps (null or absent = every app). Only a super admin or an unscoped user with users:write may set it (403 PERMISSION_DENIED otherwise); an unknown app id, or appIds on a super admin, is 400 VALIDATION_FAILED.',
  })
  @OptionalField({ nullable: true })
  @IsArray()
  @ArrayUnique()
  @ArrayMaxSize(100)
  @IsInt({ each: true })
  @Min(1, { each: true })
  appIds?: number[] | null;
}

export class UpdateAdminUserDto {
  @ApiPropertyOptional() @OptionalField() @IsString() @MinLength(1) @MaxLength(200) name?: string;
  @ApiPropertyOptional({
    enum: ['ACTIVE', 'DISABLED'],
    description: 'DISABLED revokes every session of the user',
  })
  @OptionalField()
  @IsIn(['ACTIVE', 'DISABLED'])
  status?: 'ACTIVE' | 'DISABLED';
  @ApiPropertyOptional({ type: [String], enum: PERMISSIONS })
  @OptionalField()
  @IsArray()
  @ArrayUnique()
  @IsIn(PERMISSIONS, { each: true })
  permissions?: Permission[];
  @ApiPropertyOptional() @OptionalField() @IsBoolean() superAdmin?: boolean;
  @ApiPropertyOptional({
    type: 'array',
    items: { type: 'integer', minimum: 1 },
    nullable: true,
    maxItems: 100,
    description:
      'Scope the user to these apps (null or absent = every app). Only a super admin or an unscoped user with users:write may set it (403 PERMISSION_DENIED otherwise); an unknown app id, or appIds on a super admin, is 400 VALIDATION_FAILED.',
  })
  @OptionalField({ nullable: true })
  @IsArray()
  @ArrayUnique()
  @ArrayMaxSize(100)
  @IsInt({ each: true })
  @Min(1, { each: true })
  appIds?: number[] | null;
}

export class AdminUserListQuery extends PageQueryDto(USER_SORT_FIELDS) {
  @ApiPropertyOptional({ description: 'Matches email or name (case-insensitive)' })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  @Transform(({ value }) => (typeof value === 'string' ? value.trim() : value))
  search?: string;
  @ApiPropertyOptional({ enum: ['ACTIVE', 'DISABLED'] })
  @IsOptional()
  @IsIn(['ACTIVE', 'DISABLED'])
  status?: 'ACTIVE' | 'DISABLED';
}
