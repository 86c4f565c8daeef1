import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { JomaRequest } from '../../common/http/request-context';
import { RateLimiter } from '../../common/rate-limit/rate-limiter';
import { AppCredentialsService } from '../app-credentials.service';

/**
 * X-Api-Key + X-Api-Secret: resolves the app and the mode of the call, then
 * takes the call from the app's rate limit in that mode (429 beyond it).
 */
@Injectable()
export class AppKeyGuard implements CanActivate {
  constructor(
    private readonly credentials: AppCredentialsService,
    private readonly limits: RateLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<JomaRequest>();
    const app = await this.credentials.authenticate(
      req.header('x-api-key'),
      req.header('x-api-secret'),
    );
    this.limits.takeApp(app.appId, app.mode);
    req.principalApp = app;
    return true;
  }
}
