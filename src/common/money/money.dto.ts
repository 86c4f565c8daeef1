import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsString, Max, Min } from 'class-validator';

import { OptionalField } from '../http/validation';
import { MAX_MINOR } from './money';

/**
 * A money field in a request: a JSON integer of minor units, min..2^53-1.
 * Floats, strings and out-of-range values fail validation.
 */
export function MinorAmount(opts: { min?: number; optional?: boolean; description?: string } = {}) {
  const min = opts.min ?? 1;
  const doc = {
    type: 'integer',
    format: 'int64',
    minimum: min,
    maximum: MAX_MINOR,
    description: opts.description ?? 'Amount in minor units (poisha); 100 = ৳1.00',
    example: 150000,
  } as const;
  return applyDecorators(
    ...(opts.optional ? [OptionalField(), ApiPropertyOptional(doc)] : [ApiProperty(doc)]),
    IsInt({ message: '$property must be an integer number of minor units' }),
    Min(min),
    Max(MAX_MINOR, { message: '$property must not exceed 2^53-1' }),
  );
}

/** Optional `currency` on create requests; the service rejects anything but BDT. */
export function CurrencyField() {
  return applyDecorators(
    ApiPropertyOptional({
      enum: ['BDT'],
      example: 'BDT',
      default: 'BDT',
      description: 'Only BDT is supported; anything else is 400 UNSUPPORTED_CURRENCY',
    }),
    OptionalField(),
    IsString(),
  );
}
