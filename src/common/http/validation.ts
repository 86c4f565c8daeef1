import { ArgumentMetadata, ValidationError, ValidationPipe } from '@nestjs/common';
import { ValidateIf } from 'class-validator';
import { AppError, ErrorDetail } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';

function flatten(errors: ValidationError[], prefix = ''): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const e of errors) {
    const field = prefix ? `${prefix}.${e.property}` : e.property;
    for (const message of Object.values(e.constraints ?? {})) {
      out.push({
        field,
        message: message.replace(/^property (\S+) should not exist$/, '$1 is not a known field'),
      });
    }
    if (e.children?.length) out.push(...flatten(e.children, field));
  }
  return out;
}

export const MAX_INPUT_DEPTH = 32;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string cannot be stored: NUL, or a lone UTF-16 surrogate (invalid in jsonb and UTF-8). */
function textProblem(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain the NUL character (\\u0000)';
  if (LONE_SURROGATE.test(text)) return 'must be valid Unicode (no lone surrogates)';
  return null;
}

/**
 * The first place in a request value PostgreSQL could not store: a string
 * (or key) with NUL or a lone surrogate, or nesting deeper than 32 levels.
 * Such input would otherwise fail in the database as a 500.
 */
export function findUnstorableInput(
  value: unknown,
  path = '',
  depth = 0,
): { path: string; problem: string } | null {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem ? { path, problem } : null;
  }
  if (value === null || typeof value !== 'object') return null;
  if (depth > MAX_INPUT_DEPTH)
    return { path, problem: `must not nest deeper than ${MAX_INPUT_DEPTH} levels` };
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    const here = path ? `${path}.${k}` : k;
    const keyProblem = textProblem(k);
    if (keyProblem) return { path: here, problem: keyProblem };
    const hit = findUnstorableInput(v, here, depth + 1);
    if (hit !== null) return hit;
  }
  return null;
}

/** The path of the first string holding U+0000 in a request value, or null. */
export function findNulCharacter(value: unknown, path = ''): string | null {
  const hit = findUnstorableInput(value, path);
  return hit && hit.problem.includes('NUL') ? hit.path : null;
}

class JomaValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (metadata.type === 'body' || metadata.type === 'query' || metadata.type === 'param') {
      const hit = findUnstorableInput(value, metadata.data ?? '');
      if (hit !== null) {
        const field = hit.path || metadata.type;
        throw AppError.validation(field, `${field} ${hit.problem}`);
      }
    }
    return super.transform(value, metadata);
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
