import { createSecretKey } from 'node:crypto';

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
      // A KeyObject, made once. Given a string or a Buffer, jsonwebtoken first tries
      // createPublicKey() on it and falls back to a secret key when that throws: a
      // thrown error per request, ~2 % of an admin list's CPU (profile of
      // bench/lists-scale.ts). A KeyObject is one of its documented key types; the
      // typings of passport-jwt name only string and Buffer.
      secretOrKey: createSecretKey(Buffer.from(config.jwtSecret, 'utf8')) as unknown as Buffer,
      algorithms: ['HS256'],
      ignoreExpiration: false,
    });
  }

  validate(claims: JwtClaims): Promise<AdminPrincipal> {
    return this.auth.principalFor(claims);
  }
}
