import { Controller, Get, Query } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';

import { AuditEvent, AuditService } from '../audit';
import { AuditEventDto, AuditEventQuery } from '../audit';
import { Page } from '../common/http/envelope';
import { ApiEnvelope } from '../common/http/swagger';
import { AdminAuth } from './decorators';

function toAuditEventDto(e: AuditEvent): AuditEventDto {
  return {
    id: e.id,
    createdAt: e.createdAt.toISOString(),
    actorUserId: e.actorUserId,
    actorEmail: e.actorEmail,
    action: e.action,
    targetType: e.targetType,
    targetId: e.targetId,
    before: e.before,
    after: e.after,
    clientAddress: e.clientAddress,
    requestId: e.requestId,
  };
}

@ApiTags('Admin audit')
@Controller('api/v1/admin/audit-events')
/** Admins read the audit log here (the audit module itself depends on no feature). */
export class AuditEventsController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @AdminAuth('audit:read')
  @ApiOperation({
    summary: 'The audit log, newest first',
    description:
      'Every admin change (users, permissions, apps, settings, credentials, catalog, re-sends) and every login lock-out.',
  })
  @ApiEnvelope(AuditEventDto, { isArray: true })
  async list(@Query() query: AuditEventQuery): Promise<Page<AuditEventDto>> {
    const page = await this.audit.list(query, query);
    return new Page(page.items.map(toAuditEventDto), page.pagination);
  }
}
