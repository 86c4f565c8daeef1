import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';

import { AuditModule } from '../audit';
import { RateLimitModule } from '../common/rate-limit/rate-limiter';
import { AdminBootstrapService } from './admin-bootstrap.service';
import { AdminJwtStrategy } from './admin-jwt.strategy';
import { AdminSessionsRepository } from './admin-sessions.repository';
import { AdminSession, AdminUser } from './admin-user.entity';
import { AdminUsersController } from './admin-users.controller';
import { AdminUsersRepository } from './admin-users.repository';
import { AdminUsersService } from './admin-users.service';
import { AppCredential } from './app-credential.entity';
import { AppCredentialsRepository } from './app-credentials.repository';
import { AppCredentialsService } from './app-credentials.service';
import { AuditEventsController } from './audit-events.controller';
import { AuthController } from './auth.controller';
import { AuthService } from './auth.service';
import { AdminJwtGuard } from './guards/admin-jwt.guard';
import { AppKeyGuard } from './guards/app-key.guard';
import { LoginThrottleRepository } from './login-throttle.repository';
import { LoginThrottleService } from './login-throttle.service';

/**
 * Identity and access: admin users, sessions and login throttling, app credentials,
 * and the two guards (admin JWT, app key) every other feature uses.
 */
@Module({
  imports: [
    AuditModule,
    // The app-key guard takes every app call from the app's rate limit.
    RateLimitModule,
    PassportModule,
    JwtModule.register({}),
    TypeOrmModule.forFeature([AdminUser, AdminSession, AppCredential]),
  ],
  controllers: [AuthController, AdminUsersController, AuditEventsController],
  providers: [
    AdminUsersRepository,
    AdminSessionsRepository,
    AppCredentialsRepository,
    LoginThrottleRepository,
    AdminUsersService,
    AuthService,
    LoginThrottleService,
    AdminJwtStrategy,
    AppCredentialsService,
    AdminJwtGuard,
    AppKeyGuard,
    AdminBootstrapService,
  ],
  exports: [
    AdminUsersService,
    AppCredentialsService,
    AdminJwtGuard,
    AppKeyGuard,
    AuthService,
    LoginThrottleService,
  ],
})
export class AuthModule {}
