/** The audit feature's public door. */
export { AuditModule } from './audit.module';
export { type AuditEvent, AuditService } from './audit.service';
export { AuditEventDto, AuditEventQuery } from './dto/audit-event.dto';
