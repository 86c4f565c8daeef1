import { OptionalField } from '../../common/http/validation';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsInt, IsString, Matches, MaxLength, Min, MinLength } from 'class-validator';
import { INVOICE_STATUSES } from '../../invoices/dto/invoice.dto';
import {
  CUSTOMER_EMAIL_DOC,
  CUSTOMER_NAME_DOC,
  CUSTOMER_PHONE_DOC,
  CUSTOMER_REFERENCE,
  CUSTOMER_REFERENCE_DOC,
} from '../../payments/dto/payment.dto';

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

export class CreatePurchaseDto {
  @ApiProperty({ type: 'integer', minimum: 1 }) @IsInt() @Min(1) priceId: number;

  @ApiProperty(CUSTOMER_REFERENCE_DOC)
  @IsString()
  @Matches(CUSTOMER_REFERENCE, {
    message: 'customerReference must be 1-128 characters of A-Z a-z 0-9 . _ : @ + -',
  })
  customerReference: string;

  @ApiPropertyOptional(CUSTOMER_NAME_DOC)
  @OptionalField()
  @Transform(trim)
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  customerName?: string;
  @ApiPropertyOptional(CUSTOMER_EMAIL_DOC)
  @OptionalField()
  @IsEmail()
  @MaxLength(320)
  customerEmail?: string;
  @ApiPropertyOptional(CUSTOMER_PHONE_DOC)
  @OptionalField()
  @IsString()
  @Matches(/^\+?[0-9 -]{6,20}$/, { message: 'customerPhone must be a phone number' })
  customerPhone?: string;
}

export class PayableLinkDto {
  @ApiProperty() payableUrl: string;
}

export class PurchaseDto {
  @ApiProperty({ type: 'integer' }) invoiceId: number;
  @ApiProperty({ example: 'INV-000001' }) invoiceNumber: string;
  @ApiProperty({ enum: INVOICE_STATUSES, example: 'ISSUED', description: "The invoice's status" })
  status: string;
  @ApiProperty({ type: 'integer', format: 'int64' }) totalMinor: number;
  @ApiProperty({ example: 'BDT' }) currency: string;
  @ApiProperty({ type: 'integer' }) priceId: number;
  @ApiProperty({ type: 'integer' }) productId: number;
  @ApiProperty({ type: PayableLinkDto }) payableLink: PayableLinkDto;
  @ApiPropertyOptional({
    type: 'integer',
    nullable: true,
    description: 'Set for RECURRING prices (once subscriptions exist)',
  })
  subscriptionId?: number | null;
}
