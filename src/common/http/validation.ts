import { ValidationError, ValidationPipe } from '@nestjs/common';
import { AppError, ErrorDetail } from '../errors/app-error';
import { ErrorCode } from '../errors/error-code';

function flatten(errors: ValidationError[], prefix = ''): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const e of errors) {
    const field = prefix ? `${prefix}.${e.property}` : e.property;
    for (const message of Object.values(e.constraints ?? {})) {
      out.push({ field, message: message.replace(/^property (\S+) should not exist$/, '$1 is not a known field') });
    }
    if (e.children?.length) out.push(...flatten(e.children, field));
  }
  return out;
}

/** The one ValidationPipe: unknown fields rejected, errors as field details. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
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
