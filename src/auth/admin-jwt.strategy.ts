import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';

import type { AdminPrincipal } from '../common/http/request-context';
import { AppConfig } from '../config/app-config';
import { AuthService, JwtClaims } from './auth.service';

export const ADMIN_JWT = 'admin-jwt';

/** passport-jwt verifies signature and expiry; the session row decides the rest. */
@Injectable()
export class AdminJwtStrategy extends PassportStrategy(Strategy, ADMIN_JWT) {
  constructor(
    config: AppConfig,
    private readonly auth: AuthService,
  ) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      secretOrKey: config.jwtSecret,
      algorithms: ['HS256'],
      ignoreExpiration: false,
    });
  }

  validate(claims: JwtClaims): Promise<AdminPrincipal> {
    return this.auth.principalFor(claims);
  }
}
