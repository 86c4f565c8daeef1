import { Injectable } from '@nestjs/common';
import { CLS_REQ, ClsService } from 'nestjs-cls';

import { Clock } from '../common/clock/clock';
import { Page } from '../common/http/envelope';
import type { PageQuery } from '../common/http/pagination';
import type { JomaRequest } from '../common/http/request-context';
import { AuditFilter, AuditRepository } from './audit.repository';
import { AuditEvent } from './audit-event.entity';

export type { AuditEvent } from './audit-event.entity';

/** Fields that are never written to the audit log, whatever the change (a public apiKey is kept). */
const SECRET_FIELDS = /password|secret|token|hash|encryption/i;

export type { AuditFilter } from './audit.repository';

/**
 * The audit log, written inside the caller's transaction (so a change and
 * its audit entry commit together). Who acted, from which address and in
 * which request is read from the current request; `before`/`after` keep
 * only the fields that changed, never a secret.
 */
@Injectable()
export class AuditService {
  constructor(
    private readonly audit: AuditRepository,
    private readonly cls: ClsService,
    private readonly clock: Clock,
  ) {}

  async record(entry: {
    action: string;
    targetType: string;
    targetId: string | number | null;
    before?: Record<string, unknown> | null;
    after?: Record<string, unknown> | null;
    /** Override the actor (lock-outs have none). */
    actor?: null;
    /** Record only when an admin is acting (shared services also serve app keys). */
    adminOnly?: boolean;
  }): Promise<void> {
    const req = this.cls.isActive() ? this.cls.get<JomaRequest | undefined>(CLS_REQ) : undefined;
    if (entry.adminOnly && !req?.user) return;
    const user = entry.actor === null ? undefined : req?.user;
    const { before, after } = changed(entry.before ?? null, entry.after ?? null);
    await this.audit.insert({
      createdAt: this.clock.now(),
      actorUserId: user?.userId ?? null,
      actorEmail: user?.email ?? null,
      action: entry.action,
      targetType: entry.targetType,
      targetId: entry.targetId === null ? null : String(entry.targetId),
      before: before as never,
      after: after as never,
      clientAddress: req?.ip ?? null,
      requestId: req?.id ?? null,
    });
  }

  list(query: PageQuery, filter: AuditFilter): Promise<Page<AuditEvent>> {
    return this.audit.page(query, filter);
  }
}

/** Only the fields whose values differ, secrets dropped. */
function changed(
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
): { before: Record<string, unknown> | null; after: Record<string, unknown> | null } {
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  const b: Record<string, unknown> = {};
  const a: Record<string, unknown> = {};
  for (const k of keys) {
    if (SECRET_FIELDS.test(k)) continue;
    const bv = before?.[k];
    const av = after?.[k];
    if (before && after && JSON.stringify(bv) === JSON.stringify(av)) continue;
    if (before && k in before) b[k] = bv;
    if (after && k in after) a[k] = av;
  }
  return { before: before ? b : null, after: after ? a : null };
}
