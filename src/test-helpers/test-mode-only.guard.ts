import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';

import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import type { JomaRequest } from '../common/http/request-context';

/** Runs after the app-key guard, before any pipe: a LIVE key gets 403 whatever the id. */
@Injectable()
export class TestModeOnlyGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const app = context.switchToHttp().getRequest<JomaRequest>().principalApp;
    if (app?.mode !== 'TEST')
      throw new AppError(ErrorCode.TEST_MODE_ONLY, 'Test helpers work only with TEST keys');
    return true;
  }
}
