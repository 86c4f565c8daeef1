/**
 * The auth feature's public door. Its route decorators and permission names
 * (auth/decorators.ts, auth/permissions.ts) are shared entry points of their
 * own: every feature's controllers use them, and auth's module must not be
 * loaded to read them.
 */
export { AdminUsersService, type NewAdminUser } from './admin-users.service';
export { AppCredentialsService, type IssuedCredential } from './app-credentials.service';
export { AuthModule } from './auth.module';
export { CreateAdminUserDto } from './dto/auth.dto';
export { appCallLimit } from './guards/app-call-limit.middleware';
export { LoginThrottleService } from './login-throttle.service';
