import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import type { JomaRequest } from '../../common/http/request-context';
import { AppCredentialsService } from '../app-credentials.service';

/** X-Api-Key + X-Api-Secret: resolves the app and the mode of the call. */
@Injectable()
export class AppKeyGuard implements CanActivate {
  constructor(private readonly credentials: AppCredentialsService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const req = context.switchToHttp().getRequest<JomaRequest>();
    req.principalApp = await this.credentials.authenticate(
      req.header('x-api-key'),
      req.header('x-api-secret'),
    );
    return true;
  }
}
