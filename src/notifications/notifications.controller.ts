import { Body, Controller, Get, Param, Patch, Query } from '@nestjs/common';
import { ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';

import { AppsService } from '../apps';
import { AdminAuth, AppAuth, AppScoped, CurrentApp } from '../auth/decorators';
import { AppError } from '../common/errors/app-error';
import { Page } from '../common/http/envelope';
import { ParseIdPipe } from '../common/http/parse-id.pipe';
import type { AppPrincipal } from '../common/http/request-context';
import { ApiEnvelope, ApiErrors } from '../common/http/swagger';
import {
  NotificationDto,
  NotificationListQuery,
  SmsModeQuery,
  SmsSetupDto,
  SslWirelessCredentialsDto,
} from './dto/notification.dto';
import { toNotificationDto } from './notification.mapper';
import { NotificationsRepository } from './notifications.repository';
import { SmsCredentialsService } from './sms-credentials.service';

/** What the payers of the key's mode were told (decisions section 16). */
@ApiTags('Notifications')
@Controller('api/v1/notifications')
@AppAuth()
export class NotificationsController {
  constructor(private readonly repo: NotificationsRepository) {}

  @Get()
  @ApiOperation({
    summary: "Messages to payers in the key's mode, newest first (filters kind, status, invoiceId)",
    description:
      'Receipts, dunning reminders, invoices with their pay link and trial-ending notices, one per channel (EMAIL, SMS). In TEST every message is CAPTURED: rendered exactly as the payer would get it, never sent.',
  })
  @ApiEnvelope(NotificationDto, { isArray: true })
  @ApiErrors(400)
  async list(
    @CurrentApp() app: AppPrincipal,
    @Query() query: NotificationListQuery,
  ): Promise<Page<NotificationDto>> {
    const page = await this.repo.page(app, query, query);
    return new Page(page.items.map(toNotificationDto), page.pagination);
  }

  @Get(':id')
  @ApiOperation({ summary: 'One message to a payer' })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiEnvelope(NotificationDto)
  @ApiErrors(404)
  async get(
    @CurrentApp() app: AppPrincipal,
    @Param('id', ParseIdPipe) id: number,
  ): Promise<NotificationDto> {
    const found = await this.repo.byId(app, id);
    if (!found) throw AppError.notFound('Notification');
    return toNotificationDto(found);
  }
}

@ApiTags('Admin apps')
@Controller('api/v1/admin/apps')
export class SmsCredentialsController {
  constructor(
    private readonly sms: SmsCredentialsService,
    private readonly apps: AppsService,
  ) {}

  @Patch(':id/sms/sslwireless')
  @AdminAuth('apps:write')
  @AppScoped({ appParam: 'id' })
  @ApiOperation({
    summary: "Set an app's SSL Wireless SMS credentials for one mode",
    description:
      'apiToken and sid are sealed with ENCRYPTION_KEY, never returned or logged (audited as sms_credentials.set). Without them, LIVE SMS messages are SKIPPED.',
  })
  @ApiParam({ name: 'id', schema: { type: 'integer', minimum: 1 } })
  @ApiEnvelope(SmsSetupDto)
  @ApiErrors(400, 404)
  async set(
    @Param('id', ParseIdPipe) appId: number,
    @Query() query: SmsModeQuery,
    @Body() body: SslWirelessCredentialsDto,
  ): Promise<SmsSetupDto> {
    await this.apps.get(appId);
    await this.sms.set({ appId, mode: query.mode }, 'sslwireless', {
      apiToken: body.apiToken,
      sid: body.sid,
    });
    return { applicationId: appId, mode: query.mode, provider: 'sslwireless', configured: true };
  }
}
