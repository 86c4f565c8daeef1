import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AdminPrincipal } from '../common/http/request-context';
import { ApiEnvelope, ApiErrors } from '../common/http/swagger';
import { toCurrentUserDto, toSessionDto } from './admin-user.mapper';
import { AuthService } from './auth.service';
import { AdminAuth, CurrentAdmin } from './decorators';
import { CurrentUserDto, LoginDto, SessionDto } from './dto/auth.dto';

@ApiTags('Admin auth')
@Controller('api/v1/auth')
export class AuthController {
  constructor(private readonly auth: AuthService) {}

  @Post('login')
  @HttpCode(200)
  @ApiOperation({ summary: 'Log in; returns a bearer session token (60 minutes by default)' })
  @ApiEnvelope(SessionDto)
  @ApiErrors(401, 429)
  async login(@Body() body: LoginDto): Promise<SessionDto> {
    return toSessionDto(await this.auth.login(body.email, body.password));
  }

  @Get('me')
  @AdminAuth()
  @ApiOperation({ summary: 'The current admin user' })
  @ApiEnvelope(CurrentUserDto)
  me(@CurrentAdmin() admin: AdminPrincipal): CurrentUserDto {
    return toCurrentUserDto(admin);
  }

  @Post('logout')
  @HttpCode(200)
  @AdminAuth()
  @ApiOperation({ summary: 'Revoke the session of the presented token' })
  @ApiEnvelope(CurrentUserDto)
  async logout(@CurrentAdmin() admin: AdminPrincipal): Promise<CurrentUserDto> {
    await this.auth.logout(admin);
    return toCurrentUserDto(admin);
  }
}
