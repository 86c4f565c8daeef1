import { Body, Controller, Get, HttpCode, Ip, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';

import type { AdminPrincipal } from '../common/http/request-context';
import { ApiEnvelope, ApiErrors } from '../common/http/swagger';
import { toCurrentUserDto, toSessionDto } from './admin-user.mapper';
import { AuthService } from './auth.service';
import { AdminAuth, AppScoped, CurrentAdmin } from './decorators';
import { ChangePasswordDto, CurrentUserDto, LoginDto, SessionDto } from './dto/auth.dto';

@ApiTags('Admin auth')
@Controller('api/v1/auth')
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Post('login')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Log in; returns a bearer session token (60 minutes by default)',
    description:
      'Throttled: 5 failures per email and client address, 50 per email, 20 per address in 15 minutes lock for 15 minutes (429 RATE_LIMITED with Retry-After). Body at most 4 KiB.',
  })
  @ApiEnvelope(SessionDto)
  @ApiErrors(401, 429)
  async login(@Body() body: LoginDto, @Ip() address: string): Promise<SessionDto> {
    return toSessionDto(await this.auth.login(body.email, body.password, address));
  }

  @Post('password')
  @HttpCode(200)
  @AdminAuth()
  @AppScoped()
  @ApiOperation({
    summary: 'Change your own password',
    description:
      'Checks currentPassword (401 INVALID_CREDENTIALS when wrong; throttled like login, 429 beyond); newPassword has at least 12 characters. Every other session of yours is revoked; this one stays.',
  })
  @ApiEnvelope(CurrentUserDto)
  @ApiErrors(429)
  async changePassword(
    @CurrentAdmin() admin: AdminPrincipal,
    @Body() body: ChangePasswordDto,
    @Ip() address: string,
  ): Promise<CurrentUserDto> {
    await this.auth.changeOwnPassword(admin, body.currentPassword, body.newPassword, address);
    return toCurrentUserDto(admin);
  }

  @Get('me')
  @AdminAuth()
  @AppScoped()
  @ApiOperation({ summary: 'The current admin user' })
  @ApiEnvelope(CurrentUserDto)
  me(@CurrentAdmin() admin: AdminPrincipal): CurrentUserDto {
    return toCurrentUserDto(admin);
  }

  @Post('logout')
  @HttpCode(200)
  @AdminAuth()
  @AppScoped()
  @ApiOperation({ summary: 'Revoke the session of the presented token' })
  @ApiEnvelope(CurrentUserDto)
  async logout(@CurrentAdmin() admin: AdminPrincipal): Promise<CurrentUserDto> {
    await this.auth.logout(admin);
    return toCurrentUserDto(admin);
  }
}
