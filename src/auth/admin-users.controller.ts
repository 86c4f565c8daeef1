import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';

import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { Page } from '../common/http/envelope';
import { ParseIdPipe } from '../common/http/parse-id.pipe';
import type { AdminPrincipal } from '../common/http/request-context';
import { ApiEnvelope, ApiErrors } from '../common/http/swagger';
import { toAdminUserDto } from './admin-user.mapper';
import { AdminUsersService } from './admin-users.service';
import { AdminAuth, CurrentAdmin } from './decorators';
import {
  AdminUserDto,
  AdminUserListQuery,
  CreateAdminUserDto,
  SetPasswordDto,
  UpdateAdminUserDto,
} from './dto/auth.dto';

@ApiTags('Admin users')
@Controller('api/v1/admin/users')
export class AdminUsersController {
  constructor(private readonly users: AdminUsersService) {}

  @Get()
  @AdminAuth('users:read')
  @ApiOperation({ summary: 'List admin users' })
  @ApiEnvelope(AdminUserDto, { isArray: true })
  async list(@Query() query: AdminUserListQuery): Promise<Page<AdminUserDto>> {
    const page = await this.users.list(query, { search: query.search, status: query.status });
    return new Page(page.items.map(toAdminUserDto), page.pagination);
  }

  @Post()
  @AdminAuth('users:write')
  @ApiOperation({
    summary: 'Create an admin user',
    description:
      'Only a super admin may create a super admin; others may grant only permissions they hold (else 403 PERMISSION_DENIED).',
  })
  @ApiEnvelope(AdminUserDto, { status: 201 })
  @ApiErrors(409)
  async create(
    @Body() body: CreateAdminUserDto,
    @CurrentAdmin() actor: AdminPrincipal,
  ): Promise<AdminUserDto> {
    return toAdminUserDto(await this.users.create(body, actor));
  }

  @Get(':id')
  @AdminAuth('users:read')
  @ApiOperation({ summary: 'Get an admin user' })
  @ApiEnvelope(AdminUserDto)
  @ApiErrors(404)
  async get(@Param('id', ParseIdPipe) id: number): Promise<AdminUserDto> {
    return toAdminUserDto(await this.users.get(id));
  }

  @Patch(':id')
  @AdminAuth('users:write')
  @ApiOperation({
    summary: 'Change status (DISABLED revokes sessions), permissions, name or superAdmin',
    description:
      'Only a super admin may set or clear superAdmin or change a super admin; others may grant only permissions they hold, may not change their own, may not change the appIds of a user who holds a permission they lack, and may not give a user apps beyond their own (403 PERMISSION_DENIED). A change that would leave no ACTIVE super admin is 409 INVALID_STATE.',
  })
  @ApiEnvelope(AdminUserDto)
  @ApiErrors(404, 409)
  async update(
    @Param('id', ParseIdPipe) id: number,
    @Body() body: UpdateAdminUserDto,
    @CurrentAdmin() actor: AdminPrincipal,
  ): Promise<AdminUserDto> {
    return toAdminUserDto(await this.users.update(id, body, actor));
  }

  @Post(':id/password')
  @HttpCode(200)
  @AdminAuth()
  @ApiOperation({
    summary: "Set an admin user's password (super admin only)",
    description:
      'newPassword has at least 12 characters. Revokes every session of that user. 403 PERMISSION_DENIED unless you are a super admin.',
  })
  @ApiEnvelope(AdminUserDto)
  @ApiErrors(404)
  async setPassword(
    @Param('id', ParseIdPipe) id: number,
    @Body() body: SetPasswordDto,
    @CurrentAdmin() actor: AdminPrincipal,
  ): Promise<AdminUserDto> {
    if (!actor.superAdmin) {
      throw new AppError(
        ErrorCode.PERMISSION_DENIED,
        "Permission denied: only a super admin may set another admin's password",
      );
    }
    await this.users.setPassword(id, body.newPassword);
    return toAdminUserDto(await this.users.get(id));
  }
}
