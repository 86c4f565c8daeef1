import { DomainEvent, OutboxEntry } from '../../common/domain-events';
import type { GatewayMode } from '../payment-gateway.types';

/**
 * An admin removed an app's credentials for a gateway in one mode (the row
 * is already deleted, uncommitted). Published in the removal's transaction,
 * so a feature that still needs them (payments and refunds in flight at that
 * gateway, decisions section 19) can refuse the removal by throwing: the
 * delete and its audit entry roll back. Not an app event (no outbox row).
 */
export class GatewayCredentialsRemoved extends DomainEvent {
  constructor(
    scope: { appId: number; mode: GatewayMode },
    readonly gateway: string,
  ) {
    super(scope);
  }

  outbox(): OutboxEntry | null {
    return null;
  }
}
