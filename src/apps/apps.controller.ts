import { Body, Controller, Get, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';

import { AdminAuth, AppScoped, CurrentAdmin, scopedAppIds } from '../auth/decorators';
import { Page } from '../common/http/envelope';
import { ParseIdPipe } from '../common/http/parse-id.pipe';
import type { AdminPrincipal } from '../common/http/request-context';
import { ApiEnvelope, ApiErrors } from '../common/http/swagger';
import { toAppDto, toAppSettingsDto, toCreatedAppDto } from './app.mapper';
import { AppsService } from './apps.service';
import {
  AppDto,
  AppListQuery,
  AppSettingsDto,
  CreateAppDto,
  CreatedAppDto,
  IssuedCredentialDto,
  UpdateAppDto,
  UpdateAppSettingsDto,
} from './dto/app.dto';

@ApiTags('Admin apps')
@Controller('api/v1/admin/apps')
export class AppsController {
  constructor(private readonly apps: AppsService) {}

  @Post()
  @AdminAuth('apps:write')
  @ApiOperation({ summary: 'Create an app with TEST and LIVE credentials (secrets shown once)' })
  @ApiEnvelope(CreatedAppDto, { status: 201 })
  async create(@Body() body: CreateAppDto): Promise<CreatedAppDto> {
    const { app, credentials } = await this.apps.create(body.name);
    return toCreatedAppDto(app, credentials);
  }

  @Get()
  @AdminAuth('apps:read')
  @AppScoped()
  @ApiOperation({ summary: 'List apps' })
  @ApiEnvelope(AppSettingsDto, { isArray: true })
  async list(
    @Query() query: AppListQuery,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<Page<AppSettingsDto>> {
    const page = await this.apps.list(query, {
      status: query.status,
      appIds: scopedAppIds(admin),
    });
    return new Page(page.items.map(toAppSettingsDto), page.pagination);
  }

  @Get(':id')
  @AdminAuth('apps:read')
  @AppScoped({ appParam: 'id' })
  @ApiOperation({ summary: 'Get an app with its settings and API keys (never secrets)' })
  @ApiEnvelope(AppDto)
  @ApiErrors(404)
  async get(@Param('id', ParseIdPipe) id: number): Promise<AppDto> {
    return toAppDto(await this.apps.get(id), await this.apps.keysOf(id));
  }

  @Patch(':id')
  @AdminAuth('apps:write')
  @AppScoped({ appParam: 'id' })
  @ApiOperation({ summary: 'Suspend or reactivate an app, or rename it' })
  @ApiEnvelope(AppSettingsDto)
  @ApiErrors(404)
  async update(
    @Param('id', ParseIdPipe) id: number,
    @Body() body: UpdateAppDto,
  ): Promise<AppSettingsDto> {
    return toAppSettingsDto(await this.apps.update(id, body));
  }

  @Patch(':id/settings')
  @AdminAuth('apps:write')
  @AppScoped({ appParam: 'id' })
  @ApiOperation({
    summary: 'Update app settings (amount bounds, payment expiry, redirect allowlist, ...)',
  })
  @ApiEnvelope(AppSettingsDto)
  @ApiErrors(404)
  async updateSettings(
    @Param('id', ParseIdPipe) id: number,
    @Body() body: UpdateAppSettingsDto,
  ): Promise<AppSettingsDto> {
    return toAppSettingsDto(await this.apps.updateSettings(id, body));
  }

  @Post(':id/credentials/:mode/rotate')
  @AdminAuth('apps:write')
  @AppScoped({ appParam: 'id' })
  @ApiOperation({
    summary: "Replace one mode's secret (the key stays); the old secret stops working at once",
  })
  @ApiParam({ name: 'mode', enum: ['TEST', 'LIVE'] })
  @ApiEnvelope(IssuedCredentialDto, { status: 201 })
  @ApiErrors(404)
  async rotate(
    @Param('id', ParseIdPipe) id: number,
    @Param('mode') mode: string,
  ): Promise<IssuedCredentialDto> {
    const c = await this.apps.rotateCredentials(id, AppsService.assertMode(mode));
    return { mode: c.mode, apiKey: c.apiKey, apiSecret: c.apiSecret };
  }
}
