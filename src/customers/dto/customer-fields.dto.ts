import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsEmail, IsIn, IsString, Matches, MaxLength, MinLength } from 'class-validator';

import { OptionalField } from '../../common/http/validation';
import { normalizePhone, PHONE_FORMS } from '../phone';

/** `customerReference`: the app's own id for its customer. */
export const CUSTOMER_REFERENCE = /^[A-Za-z0-9._:@+-]{1,128}$/;

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);

/**
 * Who pays: the fields every creating request that names a customer shares
 * (payments, invoices, purchases). The customer is created on first use of
 * the reference; details given later fill in or update the stored ones.
 */
export class CustomerFieldsDto {
  @ApiProperty({
    example: 'cust_42',
    pattern: CUSTOMER_REFERENCE.source,
    minLength: 1,
    maxLength: 128,
    description: "The app's own id for the customer (1-128 of A-Z a-z 0-9 . _ : @ + -)",
  })
  @IsString()
  @Matches(CUSTOMER_REFERENCE, {
    message: 'customerReference must be 1-128 characters of A-Z a-z 0-9 . _ : @ + -',
  })
  customerReference: string;

  @ApiPropertyOptional({ minLength: 1, maxLength: 200, description: 'Trimmed' })
  @OptionalField()
  @Transform(trim)
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  customerName?: string;

  @ApiPropertyOptional({ format: 'email', maxLength: 320 })
  @OptionalField()
  @IsEmail()
  @MaxLength(320)
  customerEmail?: string;

  @ApiPropertyOptional({
    // The forms normalizePhone accepts, written compact (spaces and dashes are also ignored).
    pattern: '^(?:(?:\\+?880|0)1[3-9][0-9]{8}|\\+(?!880)[1-9][0-9]{7,14})$',
    example: '01711111111',
    description: `${PHONE_FORMS}; stored as +8801XXXXXXXXX for Bangladeshi mobiles`,
  })
  @OptionalField()
  @IsString()
  @Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' ? (normalizePhone(value) ?? `invalid:${value}`) : value,
  )
  @Matches(/^\+[1-9]\d{7,14}$/, { message: `customerPhone must be ${PHONE_FORMS}` })
  customerPhone?: string;
}

/** The customer fields of invoices and purchases, with how the payer hears from the service (decisions 16). */
export class CustomerMessagingFieldsDto extends CustomerFieldsDto {
  @ApiPropertyOptional({
    enum: ['bn', 'en'],
    description: "The language of messages to the payer; default the app's defaultLanguage",
  })
  @OptionalField()
  @IsIn(['bn', 'en'])
  customerLanguage?: 'bn' | 'en';

  @ApiPropertyOptional({
    default: false,
    description:
      "Send the invoice with its pay link to the payer's email and phone when it is issued (on a purchase: its subscription's renewal invoices too)",
  })
  @OptionalField()
  @IsBoolean()
  notifyCustomer?: boolean;
}
