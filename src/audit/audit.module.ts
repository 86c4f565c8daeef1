import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { ActingAdminAuditSubscriber } from './acting-admin-audit.subscriber';
import { AuditRepository } from './audit.repository';
import { AuditService } from './audit.service';
import { AuditEvent } from './audit-event.entity';

/**
 * The audit log. Other features record their changes through AuditService,
 * inside their own transactions; admins read it at GET /api/v1/admin/audit-events
 * (auth/audit-events.controller.ts). It depends on no feature.
 */
@Module({
  imports: [TypeOrmModule.forFeature([AuditEvent])],
  providers: [AuditRepository, AuditService, ActingAdminAuditSubscriber],
  exports: [AuditService],
})
export class AuditModule {}
