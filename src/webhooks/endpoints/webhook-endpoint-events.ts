import { DomainEvent, OutboxEntry } from '../../common/domain-events';
import type { TenantScope } from '../../database/tenant';

/** An endpoint was deleted: nothing may be sent to it any more. Apps are not told (no outbox row). */
export class WebhookEndpointDeleted extends DomainEvent {
  constructor(
    scope: TenantScope,
    readonly endpointId: number,
    readonly at: Date,
  ) {
    super(scope);
  }

  outbox(): OutboxEntry | null {
    return null;
  }
}
