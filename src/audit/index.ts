/** The audit feature's public door. */
export { AuditModule } from './audit.module';
export { AuditService, type AuditEvent } from './audit.service';
export { AuditEventDto, AuditEventQuery } from './dto/audit-event.dto';
