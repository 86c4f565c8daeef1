import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, Min } from 'class-validator';

import { CustomerMessagingFieldsDto } from '../../customers';
import { INVOICE_STATUSES } from '../../invoices';

export class CreatePurchaseDto extends CustomerMessagingFieldsDto {
  @ApiProperty({ type: 'integer', minimum: 1 }) @IsInt() @Min(1) priceId: number;
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
    description: 'The subscription a RECURRING price started; null for ONE_TIME',
  })
  subscriptionId?: number | null;
}
