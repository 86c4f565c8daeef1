import { Body, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { Page } from '../common/http/envelope';
import { ParseIdPipe } from '../common/http/parse-id.pipe';
import { ApiEnvelope, ApiErrors } from '../common/http/swagger';
import { toAdminUserDto } from './admin-user.mapper';
import { AdminUsersService } from './admin-users.service';
import { AdminAuth } from './decorators';
import {
  AdminUserDto,
  AdminUserListQuery,
  CreateAdminUserDto,
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
  @ApiOperation({ summary: 'Create an admin user' })
  @ApiEnvelope(AdminUserDto, { status: 201 })
  @ApiErrors(409)
  async create(@Body() body: CreateAdminUserDto): Promise<AdminUserDto> {
    return toAdminUserDto(await this.users.create(body));
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
  })
  @ApiEnvelope(AdminUserDto)
  @ApiErrors(404)
  async update(
    @Param('id', ParseIdPipe) id: number,
    @Body() body: UpdateAdminUserDto,
  ): Promise<AdminUserDto> {
    return toAdminUserDto(await this.users.update(id, body));
  }
}
