import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { ValidateIf } from 'class-validator';

import { AppError, ErrorDetail } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';

/**
 * Constraints that say what kind of value a field takes. When one of them
 * fails, the others (ranges, lengths) say nothing useful about the value,
 * so only it is reported.
 */
const FIRST_CONSTRAINTS = [
  'whitelistValidation',
  'isDefined',
  'isInt',
  'isNumber',
  'isString',
  'isBoolean',
  'isObject',
  'isArray',
  'isIn',
  'isEnum',
];

/** One readable message per field problem. */
function messageOf(constraints: Record<string, string>): string {
  const key = FIRST_CONSTRAINTS.find((k) => k in constraints) ?? Object.keys(constraints)[0];
  return constraints[key]
    .replace(/^property (\S+) should not exist$/, '$1 is not a known field')
    .replace(/\b1 elements\b/, '1 element');
}

function flatten(errors: ValidationError[], prefix = ''): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const e of errors) {
    const field = prefix ? `${prefix}.${e.property}` : e.property;
    if (e.constraints && Object.keys(e.constraints).length > 0) {
      out.push({ field, message: messageOf(e.constraints) });
    }
    if (e.children?.length) out.push(...flatten(e.children, field));
  }
  return out;
}

/** The path of the first string (value or key) in a request value that `bad` matches, or null. */
function findString(
  value: unknown,
  bad: (s: string) => boolean,
  path = '',
  depth = 0,
): string | null {
  if (typeof value === 'string') return bad(value) ? path : null;
  if (value === null || typeof value !== 'object' || depth > 32) return null;
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (bad(k)) return path ? `${path}.${k}` : k;
    const hit = findString(v, bad, path ? `${path}.${k}` : k, depth + 1);
    if (hit !== null) return hit;
  }
  return null;
}

/**
 * The path of the first string holding U+0000 in a request value, or null.
 * PostgreSQL text cannot store NUL, so such input would otherwise fail in
 * the database as a 500.
 */
export function findNulCharacter(value: unknown, path = ''): string | null {
  return findString(value, (s) => s.includes('\u0000'), path);
}

/** With the u flag only an unpaired surrogate matches; a pair is one code point above U+FFFF. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * The path of the first string holding a lone UTF-16 surrogate (JSON allows
 * `"\ud800"`, Unicode does not), or null. jsonb refuses it (a 500) and text
 * columns would silently store U+FFFD instead.
 */
export function findLoneSurrogate(value: unknown, path = ''): string | null {
  return findString(value, (s) => LONE_SURROGATE.test(s), path);
}

/** Most JSON a `metadata` object of a payment or invoice may hold. */
export const METADATA_MAX_BYTES = 8 * 1024;

/** 400 on field `metadata` when it serialises to more than METADATA_MAX_BYTES. */
export function assertMetadataSize(metadata: Record<string, unknown> | undefined): void {
  if (metadata && Buffer.byteLength(JSON.stringify(metadata)) > METADATA_MAX_BYTES) {
    throw AppError.validation(
      'metadata',
      `metadata must be at most ${METADATA_MAX_BYTES} bytes of JSON`,
    );
  }
}

class JomaValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' || metadata.type === 'query' || metadata.type === 'param') {
      const at = findNulCharacter(value, metadata.data ?? '');
      if (at !== null) {
        const field = at || metadata.type;
        throw AppError.validation(field, `${field} must not contain the NUL character (\\u0000)`);
      }
      const lone = findLoneSurrogate(value, metadata.data ?? '');
      if (lone !== null) {
        const field = lone || metadata.type;
        throw AppError.validation(
          field,
          `${field} must be valid Unicode text (it holds a lone UTF-16 surrogate)`,
        );
      }
    }
    return super.transform(value, metadata);
  }

  /**
   * Path parameters stay strings: ids are parsed by ParseIdPipe, which
   * accepts digits only. Converting first (`+value`) would let `1e3`, `0x10`
   * or `5.0` through as other spellings of an id.
   */
  protected override transformPrimitive(value: unknown, metadata: ArgumentMetadata): unknown {
    return metadata.type === 'param' ? value : super.transformPrimitive(value, metadata);
  }
}

/** The one ValidationPipe: unknown fields rejected, errors as field details. */
export function createValidationPipe(): ValidationPipe {
  return new JomaValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    exceptionFactory: (errors) => {
      const details = flatten(errors);
      return new AppError(ErrorCode.VALIDATION_FAILED, 'Validation failed', details);
    },
  });
}

/**
 * An optional request field: it may be left out, but an explicit `null` is
 * validated like any other value (so it fails unless the field allows it).
 * Use instead of class-validator's `@IsOptional()`, which also skips `null`
 * and lets it reach NOT NULL columns as a 500. Pass `{ nullable: true }` for
 * fields where `null` means "clear".
 */
export function OptionalField(opts: { nullable?: boolean } = {}): PropertyDecorator {
  return ValidateIf((_: object, v: unknown) => v !== undefined && !(opts.nullable && v === null));
}
