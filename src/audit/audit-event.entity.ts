import { Column, Entity } from 'typeorm';

import { BigIntColumn, CreatedAtColumn, IdColumn } from '../database/columns';

/** One audited change (append-only; see the AuditEvents migration). */
@Entity('audit_events')
export class AuditEvent {
  @IdColumn() id: number;
  @CreatedAtColumn() createdAt: Date;
  @BigIntColumn({ nullable: true }) actorUserId: number | null;
  @Column({ type: 'text', nullable: true }) actorEmail: string | null;
  @Column({ type: 'text' }) action: string;
  @Column({ type: 'text' }) targetType: string;
  @Column({ type: 'text', nullable: true }) targetId: string | null;
  @Column({ type: 'jsonb', nullable: true }) before: Record<string, unknown> | null;
  @Column({ type: 'jsonb', nullable: true }) after: Record<string, unknown> | null;
  @Column({ type: 'text', nullable: true }) clientAddress: string | null;
  @Column({ type: 'text', nullable: true }) requestId: string | null;
}
