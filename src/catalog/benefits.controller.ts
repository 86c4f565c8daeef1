import { Body, Controller, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';

import {
  AdminAuth,
  AppAuth,
  AppScoped,
  assertInScope,
  CATALOG_ROUTES,
  CurrentAdmin,
  CurrentApp,
} from '../auth/decorators';
import { Page } from '../common/http/envelope';
import { ParseIdPipe } from '../common/http/parse-id.pipe';
import type { AdminPrincipal, AppPrincipal } from '../common/http/request-context';
import { ApiEnvelope, ApiErrors } from '../common/http/swagger';
import { Idempotent } from '../idempotency/idempotency.interceptor';
import { toBenefitDto } from './benefit.mapper';
import { BenefitsService } from './benefits.service';
import {
  AdminScopeQuery,
  BenefitDto,
  BenefitListQuery,
  CreateBenefitDto,
  UpdateBenefitDto,
} from './dto/benefit.dto';

@ApiTags('Benefits')
@Controller('api/v1/benefits')
@AppAuth(CATALOG_ROUTES)
export class BenefitsController {
  constructor(private readonly benefits: BenefitsService) {}

  @Post()
  @Idempotent()
  @ApiOperation({ summary: 'Create a benefit (inactive until activated)' })
  @ApiEnvelope(BenefitDto, { status: 201 })
  @ApiErrors(409)
  async create(
    @CurrentApp() app: AppPrincipal,
    @Body() body: CreateBenefitDto,
  ): Promise<BenefitDto> {
    return toBenefitDto(await this.benefits.create(app, body));
  }

  @Get()
  @ApiOperation({ summary: "List benefits of the key's mode" })
  @ApiEnvelope(BenefitDto, { isArray: true })
  async list(
    @CurrentApp() app: AppPrincipal,
    @Query() query: BenefitListQuery,
  ): Promise<Page<BenefitDto>> {
    const page = await this.benefits.list(app, query);
    return new Page(page.items.map(toBenefitDto), page.pagination);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a benefit' })
  @ApiEnvelope(BenefitDto)
  @ApiErrors(404)
  async get(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) id: number,
  ): Promise<BenefitDto> {
    return toBenefitDto(await this.benefits.get(app, id));
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Rename a benefit or change its metadata',
    description:
      'Fields left out stay; `metadata: null` clears it. The lookupKey never changes (apps find the benefit by it); grants are untouched.',
  })
  @ApiEnvelope(BenefitDto)
  @ApiErrors(404)
  async update(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) id: number,
    @Body() body: UpdateBenefitDto,
  ): Promise<BenefitDto> {
    return toBenefitDto(await this.benefits.update(app, id, body));
  }

  @Post(':id/activate')
  @HttpCode(200)
  @ApiOperation({ summary: 'Activate a benefit so it can be granted' })
  @ApiEnvelope(BenefitDto)
  @ApiErrors(404)
  async activate(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) id: number,
  ): Promise<BenefitDto> {
    return toBenefitDto(await this.benefits.activate(app, id));
  }
}

@ApiTags('Admin catalog')
@Controller('api/v1/admin/benefits')
export class AdminBenefitsController {
  constructor(private readonly benefits: BenefitsService) {}

  @Post()
  @AdminAuth('catalog:write')
  @AppScoped()
  @ApiOperation({
    summary: 'Create a benefit for an app in the given mode',
    description: '404 when applicationId names no app.',
  })
  @ApiEnvelope(BenefitDto, { status: 201 })
  @ApiErrors(404, 409)
  async create(
    @Query() scope: AdminScopeQuery,
    @Body() body: CreateBenefitDto,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<BenefitDto> {
    assertInScope(admin, scope.applicationId, 'App');
    return toBenefitDto(
      await this.benefits.create({ appId: scope.applicationId, mode: scope.mode }, body),
    );
  }

  @Post(':id/activate')
  @HttpCode(200)
  @AdminAuth('catalog:write')
  @AppScoped()
  @ApiOperation({ summary: 'Activate a benefit' })
  @ApiEnvelope(BenefitDto)
  @ApiErrors(404)
  async activate(
    @Param('id', ParseIdPipe) id: number,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<BenefitDto> {
    const scope = await this.benefits.scopeOf(id);
    assertInScope(admin, scope.appId, 'Benefit');
    return toBenefitDto(await this.benefits.activate(scope, id));
  }
}
