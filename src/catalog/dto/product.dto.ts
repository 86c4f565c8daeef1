import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsInt, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';

import { PageQueryDto } from '../../common/http/pagination';
import { OptionalField } from '../../common/http/validation';
import { PRODUCT_STATUSES, ProductStatus } from '../product-state';
import { BenefitDto } from './benefit.dto';
import { PriceDto } from './price.dto';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

export class CreateProductDto {
  @ApiProperty({ example: 'Pro plan', maxLength: 200 })
  @Transform(trim)
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name: string;

  @ApiPropertyOptional({ example: 'Everything in Basic, plus priority support', maxLength: 4000 })
  @OptionalField()
  @IsString()
  @MaxLength(4000)
  description?: string;
}

export class UpdateProductDto {
  @ApiPropertyOptional({ example: 'Pro plan', maxLength: 200 })
  @OptionalField()
  @Transform(trim)
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({
    nullable: true,
    type: String,
    maxLength: 4000,
    description: 'null clears it',
  })
  @OptionalField({ nullable: true })
  @IsString()
  @MaxLength(4000)
  description?: string | null;
}

export class AttachBenefitDto {
  @ApiProperty({
    type: 'integer',
    description: 'A benefit of the same app and mode as the product',
  })
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  benefitId: number;
}

export class ProductDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty() name: string;
  @ApiProperty({ nullable: true, type: String }) description: string | null;
  @ApiProperty({
    enum: PRODUCT_STATUSES,
    enumName: 'ProductStatus',
    description:
      'DRAFT until the first price is created, then ACTIVE; ARCHIVED takes no new purchases or prices',
  })
  status: ProductStatus;
  @ApiProperty({ enum: ['TEST', 'LIVE'] }) mode: string;
  @ApiProperty({ type: [PriceDto], description: 'All prices, active and inactive, oldest first' })
  prices: PriceDto[];
  @ApiProperty({ type: [BenefitDto], description: 'Attached benefits, in order of attachment' })
  benefits: BenefitDto[];
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export const PRODUCT_SORT_FIELDS = ['createdAt', 'updatedAt', 'name', 'id'] as const;
export class ProductListQuery extends PageQueryDto(PRODUCT_SORT_FIELDS) {
  @ApiPropertyOptional({ enum: PRODUCT_STATUSES, enumName: 'ProductStatus' })
  @OptionalField()
  @IsIn([...PRODUCT_STATUSES])
  status?: ProductStatus;
}
