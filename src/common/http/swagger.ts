import { applyDecorators, Type } from '@nestjs/common';
import {
  ApiExtraModels,
  ApiProperty,
  ApiPropertyOptional,
  ApiResponse,
  getSchemaPath,
} from '@nestjs/swagger';

import { ErrorCode } from '../errors/error-code';

export class ErrorDetailDto {
  @ApiProperty({ example: 'amountMinor' }) field: string;
  @ApiProperty({ example: 'amountMinor must be an integer number of minor units' }) message: string;
}

export class MetaDto {
  @ApiProperty() success: boolean;
  @ApiProperty({ example: 'OK' }) message: string;
  @ApiPropertyOptional({ enum: ErrorCode, enumName: 'ErrorCode' }) errorCode?: ErrorCode;
  @ApiProperty({ format: 'date-time' }) timestamp: string;
  @ApiPropertyOptional({ type: [ErrorDetailDto] }) details?: ErrorDetailDto[];
}

export class PaginationDto {
  @ApiProperty({ type: 'integer', description: '0-based page' }) page: number;
  @ApiProperty({ type: 'integer' }) size: number;
  @ApiProperty({ type: 'integer' }) totalElements: number;
  @ApiProperty({ type: 'integer' }) totalPages: number;
  @ApiPropertyOptional({
    type: 'string',
    description:
      'On lists in the default newest-first order, while more rows follow: pass it as `cursor` for the next page (keyset paging at any depth)',
  })
  nextCursor?: string;
}

export class ErrorEnvelopeDto {
  @ApiProperty({ nullable: true, example: null, type: Object }) data: null;
  @ApiProperty({ type: MetaDto }) meta: MetaDto;
  @ApiProperty({ type: PaginationDto }) pagination: PaginationDto;
}

const ERROR_TEXT: Record<number, string> = {
  400: 'VALIDATION_FAILED, MALFORMED_JSON or a more specific 400 code',
  401: 'AUTHENTICATION_REQUIRED (no credential) or INVALID_CREDENTIALS',
  403: 'PERMISSION_DENIED, APP_SUSPENDED or TEST_MODE_ONLY',
  404: 'RESOURCE_NOT_FOUND (also for records of another app or mode)',
  409: 'INVALID_STATE, DUPLICATE_RESOURCE or IDEMPOTENCY_KEY_IN_USE',
  413: 'PAYLOAD_TOO_LARGE (body over 1 MiB)',
  422: 'IDEMPOTENCY_KEY_REUSED or AMOUNT_OUT_OF_RANGE',
  429: 'RATE_LIMITED, with Retry-After',
  503: 'SERVICE_UNAVAILABLE (e.g. the payment gateway could not open a checkout)',
};

/** Documents error responses (all share the error envelope). */
export function ApiErrors(...statuses: number[]) {
  return applyDecorators(
    ApiExtraModels(ErrorEnvelopeDto),
    ...statuses.map((status) =>
      ApiResponse({ status, description: ERROR_TEXT[status] ?? 'Error', type: ErrorEnvelopeDto }),
    ),
  );
}

/** Documents a success response: the envelope with `data` of the given model. */
export function ApiEnvelope(
  model: Type<unknown>,
  opts: { status?: number; isArray?: boolean; description?: string } = {},
) {
  const data = opts.isArray
    ? { type: 'array', items: { $ref: getSchemaPath(model) } }
    : { $ref: getSchemaPath(model) };
  return applyDecorators(
    ApiExtraModels(model, MetaDto, PaginationDto),
    ApiResponse({
      status: opts.status ?? 200,
      description: opts.description ?? 'Success',
      schema: {
        type: 'object',
        required: ['data', 'meta', 'pagination'],
        properties: {
          data,
          meta: { $ref: getSchemaPath(MetaDto) },
          pagination: { $ref: getSchemaPath(PaginationDto) },
        },
      },
    }),
    ApiErrors(400, 500),
  );
}
