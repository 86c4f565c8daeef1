import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';

import type { JomaRequest } from '../../common/http/request-context';
import { RateLimiter } from '../../common/rate-limit/rate-limiter';
import { AppCredentialsService } from '../app-credentials.service';

/**
 * X-Api-Key + X-Api-Secret: resolves the app and the mode of the call, then
 * takes the call from the app's rate limit in that mode (429 beyond it).
 * `appCallLimit` does both before the body is read when this replica has
 * the key cached; then there is nothing left to do here.
 */
@Injectable()
export class AppKeyGuard implements CanActivate {
  constructor(
    private readonly credentials: AppCredentialsService,
    private readonly limits: RateLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<JomaRequest>();
    // Already authenticated from this replica's cache, and counted, before the body was read.
    if (req.principalApp) return true;
    const app = await this.credentials.authenticate(
      req.headers['x-api-key'] as string | undefined,
      req.headers['x-api-secret'] as string | undefined,
    );
    this.limits.takeApp(app.appId, app.mode);
    req.principalApp = app;
    return true;
  }
}
