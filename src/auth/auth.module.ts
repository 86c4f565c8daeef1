import { Module } from '@nestjs/common';
import { JwtModule } from '@nestjs/jwt';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AdminBootstrapService } from './admin-bootstrap.service';
import { AdminSessionsRepository } from './admin-sessions.repository';
import { AdminUsersRepository } from './admin-users.repository';
import { AppCredentialsRepository } from './app-credentials.repository';
import { LoginThrottleRepository } from './login-throttle.repository';
import { AdminJwtStrategy } from './admin-jwt.strategy';
import { AdminSession, AdminUser } from './admin-user.entity';
import { AdminUsersController } from './admin-users.controller';
import { AdminUsersService } from './admin-users.service';
import { AppCredential } from './app-credential.entity';
import { AppCredentialsService } from './app-credentials.service';
import { AuthController } from './auth.controller';
import { AuditEventsController } from './audit-events.controller';
import { AuditModule } from '../audit';
import { AuthService } from './auth.service';
import { RateLimitModule } from '../common/rate-limit/rate-limiter';
import { AdminJwtGuard } from './guards/admin-jwt.guard';
import { AppKeyGuard } from './guards/app-key.guard';
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
