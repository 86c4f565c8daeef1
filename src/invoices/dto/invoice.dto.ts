import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsDateString,
  IsIn,
  IsInt,
  IsObject,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';

import { DateRangeField, SearchField } from '../../common/http/list-filters';
import { PageQueryDto, toInt } from '../../common/http/pagination';
import { OptionalField } from '../../common/http/validation';
import { CurrencyField, MinorAmount } from '../../common/money/money.dto';
import { CustomerMessagingFieldsDto } from '../../customers';
import { PaymentDto } from '../../payments';
import { INVOICE_STATUSES } from '../invoice-state';

/** Invoice statuses, for other features' DTOs (a purchase answers with its invoice's status). */
export { INVOICE_STATUSES };

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

export class LineItemInput {
  @ApiProperty({ example: 'Monthly plan', minLength: 1, maxLength: 500, description: 'Trimmed' })
  @Transform(trim)
  @IsString()
  @MinLength(1)
  @MaxLength(500)
  description: string;
  @ApiProperty({ type: 'integer', minimum: 1, maximum: 100000, example: 1 })
  @IsInt()
  @Min(1)
  @Max(100000)
  qty: number;
  @MinorAmount() unitAmountMinor: number;
}

export class CreateInvoiceDto extends CustomerMessagingFieldsDto {
  @ApiProperty({ type: [LineItemInput], minItems: 1, maxItems: 100 })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => LineItemInput)
  lineItems: LineItemInput[];

  @CurrencyField() currency?: string;

  @ApiPropertyOptional({
    format: 'date',
    description: 'YYYY-MM-DD; defaults to 7 days after issue',
  })
  @OptionalField()
  @IsDateString({ strict: true })
  @Matches(/^\d{4}-\d{2}-\d{2}$/, { message: 'dueDate must be YYYY-MM-DD' })
  dueDate?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'Up to 8 KiB of JSON kept with the invoice',
  })
  @OptionalField()
  @IsObject()
  metadata?: Record<string, unknown>;
}

export class LineItemDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty() description: string;
  @ApiProperty({ type: 'integer' }) qty: number;
  @ApiProperty({ type: 'integer', format: 'int64' }) unitAmountMinor: number;
  @ApiProperty({ type: 'integer', format: 'int64' }) lineTotalMinor: number;
}

export class InvoiceDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ example: 'INV-000001' }) number: string;
  @ApiProperty({ enum: INVOICE_STATUSES }) status: string;
  @ApiProperty({ enum: ['TEST', 'LIVE'] }) mode: string;
  @ApiProperty({ type: 'integer' }) applicationId: number;
  @ApiProperty() applicationName: string;
  @ApiProperty({ type: 'integer', nullable: true }) subscriptionId: number | null;
  @ApiProperty({ type: 'integer', nullable: true }) priceId: number | null;
  @ApiProperty() customerReference: string;
  @ApiProperty({ nullable: true, type: String }) customerName: string | null;
  @ApiProperty({ nullable: true, type: String }) customerEmail: string | null;
  @ApiProperty({ nullable: true, type: String }) customerPhone: string | null;
  @ApiProperty({ type: 'integer', format: 'int64' }) totalMinor: number;
  @ApiProperty({ type: 'integer', format: 'int64' }) amountPaidMinor: number;
  @ApiProperty({ type: 'integer', format: 'int64' }) amountDueMinor: number;
  @ApiProperty({ example: 'BDT' }) currency: string;
  @ApiProperty({ format: 'date' }) dueDate: string;
  @ApiProperty({ format: 'date-time' }) issuedAt: string;
  @ApiProperty({ type: [LineItemDto] }) lineItems: LineItemDto[];
  @ApiProperty({ type: [PaymentDto] }) payments: PaymentDto[];
  @ApiProperty({ description: 'Hosted pay page for the customer' }) payableUrl: string;
  @ApiProperty({
    type: String,
    enum: ['bn', 'en', null],
    nullable: true,
    description: "The payer's language for messages (null: the app's defaultLanguage)",
  })
  customerLanguage: 'bn' | 'en' | null;
  @ApiProperty({ description: 'Whether the invoice was sent to the payer when issued' })
  notifyCustomer: boolean;
  @ApiProperty({ nullable: true, type: 'object', additionalProperties: true }) metadata: Record<
    string,
    unknown
  > | null;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

/** An invoice in a list: no line items and no payments (GET /api/v1/invoices/{id} has them). */
export class InvoiceListItemDto extends OmitType(InvoiceDto, ['lineItems', 'payments'] as const) {}

export class InvoiceSummaryDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ type: 'integer' }) applicationId: number;
  @ApiProperty() applicationName: string;
  @ApiProperty() number: string;
  @ApiProperty({ enum: ['TEST', 'LIVE'] }) mode: string;
  @ApiProperty({ enum: INVOICE_STATUSES }) status: string;
  @ApiProperty({ type: 'integer' }) customerRefId: number;
  @ApiProperty() customerExternalId: string;
  @ApiProperty({ nullable: true, type: String }) customerName: string | null;
  @ApiProperty({ nullable: true, type: String }) customerEmail: string | null;
  @ApiProperty({ nullable: true, type: String }) customerPhone: string | null;
  @ApiProperty({ type: 'integer', format: 'int64' }) totalMinor: number;
  @ApiProperty({ type: 'integer', format: 'int64' }) amountPaidMinor: number;
  @ApiProperty({ type: 'integer', format: 'int64' }) amountDueMinor: number;
  @ApiProperty() currency: string;
  @ApiProperty({ format: 'date' }) dueDate: string;
  @ApiProperty({ format: 'date-time' }) issuedAt: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

export const INVOICE_SORT_FIELDS = [
  'createdAt',
  'issuedAt',
  'dueDate',
  'number',
  'totalMinor',
  'id',
] as const;

/** What `q` finds on the invoice lists. */
const INVOICE_SEARCH =
  "Finds invoices by number (`INV-000042`, any letter case), by their customer's reference or email (exact, any letter case) or phone (any form customerPhone takes), or by the id, reference (`pay_...`) or gateway transaction id of a payment made on them. Combines with the other filters.";

export class InvoiceListQuery extends PageQueryDto(INVOICE_SORT_FIELDS) {
  @ApiPropertyOptional({ enum: INVOICE_STATUSES })
  @OptionalField()
  @IsIn(INVOICE_STATUSES)
  status?: string;
  @ApiPropertyOptional() @OptionalField() @IsString() @MaxLength(128) customerReference?: string;
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    description: "Only this subscription's invoices (its first and its renewals)",
  })
  @OptionalField()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(Number.MAX_SAFE_INTEGER)
  subscriptionId?: number;
  @DateRangeField('from') from?: string;
  @DateRangeField('to') to?: string;
  @SearchField(INVOICE_SEARCH) q?: string;
}

export class AdminInvoiceQuery extends PageQueryDto(INVOICE_SORT_FIELDS) {
  @ApiPropertyOptional({ type: 'integer' })
  @OptionalField()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  applicationId?: number;
  @ApiPropertyOptional({ enum: ['TEST', 'LIVE'] }) @OptionalField() @IsIn(['TEST', 'LIVE']) mode?:
    'TEST' | 'LIVE';
  @ApiPropertyOptional({ enum: INVOICE_STATUSES })
  @OptionalField()
  @IsIn(INVOICE_STATUSES)
  status?: string;
  @ApiPropertyOptional({ description: 'Exact invoice number, e.g. INV-000001' })
  @OptionalField()
  @IsString()
  @MaxLength(40)
  number?: string;
  @ApiPropertyOptional({ type: 'integer', description: 'Internal customer id' })
  @OptionalField()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  customerRefId?: number;
  @DateRangeField('from', { instants: true }) from?: string;
  @DateRangeField('to', { instants: true }) to?: string;
  @SearchField(INVOICE_SEARCH) q?: string;
}

export class InvoiceTemplateInput {
  @ApiPropertyOptional({
    nullable: true,
    type: String,
    format: 'uri',
    maxLength: 2000,
    pattern: '^https?://\\S+$',
    description: 'http(s) URL of the logo',
  })
  @OptionalField({ nullable: true })
  @IsString()
  @MaxLength(2000)
  @Matches(/^https?:\/\/\S+$/, { message: 'logoUrl must be an http(s) URL' })
  logoUrl?: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 200 })
  @OptionalField({ nullable: true })
  @IsString()
  @MaxLength(200)
  companyName?: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 1000 })
  @OptionalField({ nullable: true })
  @IsString()
  @MaxLength(1000)
  companyAddress?: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 1000 })
  @OptionalField({ nullable: true })
  @IsString()
  @MaxLength(1000)
  contactDetails?: string | null;
  @ApiPropertyOptional({ nullable: true, type: String, maxLength: 2000 })
  @OptionalField({ nullable: true })
  @IsString()
  @MaxLength(2000)
  footerNote?: string | null;
  @ApiPropertyOptional({
    nullable: true,
    type: String,
    example: '#0f766e',
    pattern: '^#[0-9a-fA-F]{3}([0-9a-fA-F]{3})?$',
  })
  @OptionalField({ nullable: true })
  @IsString()
  @Matches(/^#[0-9a-fA-F]{3}([0-9a-fA-F]{3})?$/, {
    message: 'accentColor must be a hex colour like #0f766e',
  })
  accentColor?: string | null;
}

export class InvoiceTemplateDto {
  @ApiProperty({ nullable: true, type: String }) logoUrl: string | null;
  @ApiProperty({ nullable: true, type: String }) companyName: string | null;
  @ApiProperty({ nullable: true, type: String }) companyAddress: string | null;
  @ApiProperty({ nullable: true, type: String }) contactDetails: string | null;
  @ApiProperty({ nullable: true, type: String }) footerNote: string | null;
  @ApiProperty({ nullable: true, type: String }) accentColor: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) createdAt: string | null;
  @ApiProperty({ format: 'date-time', nullable: true, type: String }) updatedAt: string | null;
}
