import type { NextFunction, Response } from 'express';

import type { AppError } from '../../common/errors/app-error';
import type { JomaRequest } from '../../common/http/request-context';
import type { RateLimiter } from '../../common/rate-limit/rate-limiter';
import type { AppCredentialsService } from '../app-credentials.service';

/**
 * The app rate limit, as early as it can be decided: an app call whose key
 * this replica has cached (and whose secret matches) is taken from its app's
 * limit before the body is read or anything else runs, so a 429 costs little
 * when an app floods the service; the call is then authenticated
 * (`req.principalApp`) and the app-key guard has nothing left to do. Anything else (an uncached key, a wrong
 * secret, no key) goes on to the app-key guard, which authenticates with a
 * database read and takes the call from the limit there.
 */
export function appCallLimit(
  credentials: AppCredentialsService,
  limits: RateLimiter,
  refuse: (err: AppError, req: JomaRequest, res: Response) => void,
) {
  return (req: JomaRequest, res: Response, next: NextFunction): void => {
    const app = credentials.authenticateCached(
      req.headers['x-api-key'] as string | undefined,
      req.headers['x-api-secret'] as string | undefined,
    );
    if (!app) return next();
    const refusal = limits.appRefusal(app.appId, app.mode);
    if (refusal) return refuse(refusal, req, res);
    req.principalApp = app;
    next();
  };
}
