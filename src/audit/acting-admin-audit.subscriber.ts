import { Injectable } from '@nestjs/common';
import { CLS_REQ, ClsService } from 'nestjs-cls';

import { DomainEvent, OnDomainEvent } from '../common/domain-events';
import type { JomaRequest } from '../common/http/request-context';
import { AuditService } from './audit.service';

/**
 * An admin acting on an app through the app routes (decisions section 15):
 * every fact the call makes true (invoice created, refund pending,
 * subscription paused...) is written to the audit log with the admin as
 * actor, in the transaction of the change. A call by the app's own key is
 * not audited here (the events log is its record), nor an admin route's
 * call (it audits its own change).
 */
@Injectable()
export class ActingAdminAuditSubscriber {
  constructor(
    private readonly audit: AuditService,
    private readonly cls: ClsService,
  ) {}

  @OnDomainEvent(DomainEvent)
  async record(fact: DomainEvent): Promise<void> {
    const req = this.cls.isActive() ? this.cls.get<JomaRequest | undefined>(CLS_REQ) : undefined;
    if (!req?.user || !req.principalApp) return;
    // Facts apps are not told about are internal steps of a change its service audits.
    const entry = fact.outbox();
    if (!entry) return;
    const targetType = entry.type.split('.')[0];
    // The event's own object: `invoice_id` of an invoice.* event, and so on.
    const id = entry.data[`${targetType}_id`] ?? entry.data.id;
    await this.audit.record({
      action: entry.type,
      targetType,
      targetId: typeof id === 'number' || typeof id === 'string' ? id : null,
      after: { applicationId: fact.scope.appId, mode: fact.scope.mode },
    });
  }
}
