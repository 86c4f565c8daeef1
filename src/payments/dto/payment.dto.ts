import { ApiProperty, ApiPropertyOptional, OmitType } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import {
  IsIn,
  IsInt,
  IsObject,
  IsString,
  IsUrl,
  Matches,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';

import { DateRangeField, SearchField } from '../../common/http/list-filters';
import { PageQueryDto, toInt } from '../../common/http/pagination';
import { OptionalField } from '../../common/http/validation';
import { CurrencyField, MinorAmount } from '../../common/money/money.dto';
import { CUSTOMER_REFERENCE, CustomerFieldsDto } from '../../customers';
import { GATEWAY_NAMES } from '../../gateways';
import { RISK_LEVELS, type RiskLevel } from '../payment.entity';
import { PAYMENT_STATUSES } from '../payment-state';

const URL_OPTS = { protocols: ['http', 'https'], require_protocol: true, require_tld: false };
const URL_DOC = { format: 'uri', maxLength: 2000, description: 'http(s) URL' };

export class CreatePaymentDto extends OmitType(CustomerFieldsDto, ['customerReference'] as const) {
  @ApiPropertyOptional({
    example: 'cust_42',
    pattern: CUSTOMER_REFERENCE.source,
    minLength: 1,
    maxLength: 128,
    description:
      "The app's own id for the customer. Required unless invoiceId is given: then the invoice's customer pays, and a different customerReference is 400 VALIDATION_FAILED",
  })
  @ValidateIf(
    (o: CreatePaymentDto) => o.invoiceId === undefined || o.customerReference !== undefined,
  )
  @IsString()
  @Matches(CUSTOMER_REFERENCE, {
    message: 'customerReference must be 1-128 characters of A-Z a-z 0-9 . _ : @ + -',
  })
  customerReference?: string;

  @MinorAmount()
  amountMinor: number;

  @CurrencyField() currency?: string;

  @ApiPropertyOptional({
    type: 'integer',
    minimum: 1,
    description: 'Pay (part of) this invoice; amount must not exceed what is due',
  })
  @OptionalField()
  @IsInt()
  @Min(1)
  invoiceId?: number;

  @ApiPropertyOptional({ maxLength: 500 })
  @OptionalField()
  @IsString()
  @MaxLength(500)
  description?: string;

  @ApiPropertyOptional({
    maxLength: 40,
    enum: GATEWAY_NAMES,
    example: 'sandbox',
    description:
      'Gateway adapter to use; the sandbox serves TEST only, LIVE defaults to the real gateway',
  })
  @OptionalField()
  @IsString()
  @MaxLength(40)
  gateway?: string;

  @ApiPropertyOptional({
    ...URL_DOC,
    description:
      "Where the customer returns after paying; must match the app's returnUrlAllowlist (empty: any https URL)",
  })
  @OptionalField()
  @IsUrl(URL_OPTS)
  @MaxLength(2000)
  successUrl?: string;
  @ApiPropertyOptional({
    ...URL_DOC,
    description: 'After a failed payment; allowlist as successUrl',
  })
  @OptionalField()
  @IsUrl(URL_OPTS)
  @MaxLength(2000)
  failUrl?: string;
  @ApiPropertyOptional({
    ...URL_DOC,
    description: 'After a cancelled or expired checkout; allowlist as successUrl',
  })
  @OptionalField()
  @IsUrl(URL_OPTS)
  @MaxLength(2000)
  cancelUrl?: string;

  @ApiPropertyOptional({
    type: 'object',
    additionalProperties: true,
    description: 'Up to 8 KiB of JSON kept with the payment',
  })
  @OptionalField()
  @IsObject()
  metadata?: Record<string, unknown>;
}

export class PaymentDto {
  @ApiProperty({ type: 'integer' }) id: number;
  @ApiProperty({ example: 'pay_8J2...' }) reference: string;
  @ApiProperty({ enum: PAYMENT_STATUSES }) status: string;
  @ApiProperty({ type: 'integer' }) applicationId: number;
  @ApiProperty({ enum: ['TEST', 'LIVE'] }) mode: string;
  @ApiProperty({ type: 'integer', format: 'int64' }) amountMinor: number;
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    minimum: 0,
    description:
      'What the capture brought beyond what its invoice still needed (invoice already paid or void, or more than the remainder): counted on no invoice, to be refunded. 0 when none; listed by GET /api/v1/admin/payments?excess=true',
  })
  excessMinor: number;
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    minimum: 0,
    description: 'What succeeded refunds gave back; never more than amountMinor',
  })
  amountRefundedMinor: number;
  @ApiProperty({
    enum: RISK_LEVELS,
    description:
      "The gateway's risk verdict on the capture: HIGH when SSLCommerz flags it (risk_level 1); money moved all the same, review before delivering. NORMAL otherwise",
  })
  riskLevel: RiskLevel;
  @ApiProperty({
    nullable: true,
    type: String,
    description:
      "Why the payment failed, in the gateway's own words (its error code and message), e.g. `Could not open a checkout: bkash 2001: Invalid App Key`. On a PENDING payment: why the payer's last attempt was declined at a gateway whose checkout takes another try (SSLCommerz); the payment ends FAILED only at its deadline. Null otherwise (and once the payment succeeds)",
  })
  failureReason: string | null;
  @ApiProperty({ example: 'BDT' }) currency: string;
  @ApiProperty({ example: 'sandbox' }) gateway: string;
  @ApiProperty({ nullable: true, type: String }) gatewayTxnId: string | null;
  @ApiProperty({ nullable: true, type: String }) paymentMethod: string | null;
  @ApiProperty({ nullable: true, type: String }) paymentMethodLabel: string | null;
  @ApiProperty({ nullable: true, type: String }) paymentMethodBrand: string | null;
  @ApiProperty({ nullable: true, type: String }) paymentMethodIssuer: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description:
      'The wallet or card number, masked: the first two and last two characters only (`01*******75`)',
  })
  paymentMethodAccount: string | null;
  @ApiProperty({ nullable: true, type: String, description: 'Send the customer here to pay' })
  checkoutUrl: string | null;
  @ApiProperty({
    nullable: true,
    type: String,
    description: 'Where the customer returns after paying (successUrl)',
  })
  redirectUrl: string | null;
  @ApiProperty({ nullable: true, type: 'integer' }) invoiceId: number | null;
  @ApiProperty({ nullable: true, type: 'object', additionalProperties: true }) metadata: Record<
    string,
    unknown
  > | null;
  @ApiProperty({ format: 'date-time' }) expiresAt: string;
  @ApiProperty({ format: 'date-time' }) createdAt: string;
  @ApiProperty({ format: 'date-time' }) updatedAt: string;
}

/** What Joma answers a gateway's server-to-server notification. */
export class IpnAckDto {
  @ApiProperty({ description: 'The notification was read and verified with the gateway' })
  received: boolean;
}

export const PAYMENT_SORT_FIELDS = ['createdAt', 'amountMinor', 'id', 'expiresAt'] as const;

/** What `q` finds on the payment lists. */
const PAYMENT_SEARCH =
  "Finds payments by id, by reference (`pay_...`), by the gateway's transaction id (sandbox `SBXTXN...`, bKash `trxID`, SSLCommerz `bank_tran_id`, Nagad `issuerPaymentRefNo`; as given or in upper case), or by their customer's reference or email (exact, any letter case) or phone (any form customerPhone takes). Combines with the other filters.";

export class PaymentListQuery extends PageQueryDto(PAYMENT_SORT_FIELDS) {
  @ApiPropertyOptional({ enum: PAYMENT_STATUSES })
  @OptionalField()
  @IsIn(PAYMENT_STATUSES)
  status?: string;
  @DateRangeField('from') from?: string;
  @DateRangeField('to') to?: string;
  @SearchField(PAYMENT_SEARCH) q?: string;
}

/** GET /api/v1/admin/payments: payments across apps and modes. */
export class AdminPaymentQuery extends PageQueryDto(PAYMENT_SORT_FIELDS) {
  @ApiPropertyOptional({ type: 'integer', minimum: 1 })
  @OptionalField()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  applicationId?: number;

  @ApiPropertyOptional({ enum: ['TEST', 'LIVE'] })
  @OptionalField()
  @IsIn(['TEST', 'LIVE'])
  mode?: 'TEST' | 'LIVE';

  @ApiPropertyOptional({ enum: PAYMENT_STATUSES })
  @OptionalField()
  @IsIn(PAYMENT_STATUSES)
  status?: string;

  @ApiPropertyOptional({
    enum: ['true', 'false'],
    description: 'true: only captures with an excess (excessMinor > 0), to be refunded',
  })
  @OptionalField()
  @IsIn(['true', 'false'])
  excess?: 'true' | 'false';

  @ApiPropertyOptional({
    enum: RISK_LEVELS,
    description:
      'HIGH: only captures the gateway flagged as high risk (SSLCommerz risk_level 1), to review before delivering',
  })
  @OptionalField()
  @IsIn(RISK_LEVELS)
  risk?: RiskLevel;

  @ApiPropertyOptional({
    enum: GATEWAY_NAMES,
    example: 'bkash',
    description: 'Only payments through this gateway',
  })
  @OptionalField()
  @IsString()
  @MaxLength(40)
  gateway?: string;

  @DateRangeField('from', { instants: true }) from?: string;
  @DateRangeField('to', { instants: true }) to?: string;
  @SearchField(PAYMENT_SEARCH) q?: string;
}
