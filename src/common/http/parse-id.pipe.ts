import { ArgumentMetadata, Injectable, PipeTransform } from '@nestjs/common';

import { AppError } from '../errors/app-error';

/** A numeric record id in a path: 1..2^53-1, digits only. */
@Injectable()
export class ParseIdPipe implements PipeTransform<string, number> {
  transform(value: string, meta: ArgumentMetadata): number {
    const n = /^\d{1,16}$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(n) || n < 1)
      throw AppError.validation(
        meta.data ?? 'id',
        `${meta.data ?? 'id'} must be a positive integer`,
      );
    return n;
  }
}
