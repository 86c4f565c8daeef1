import type { Mode } from '../http/request-context';

/** What a fact is recorded as in the webhook outbox (an event type of the catalogue and its `data`). */
export interface OutboxEntry {
  type: string;
  data: Record<string, unknown>;
}

/**
 * A fact that happened in one app and mode ("payment succeeded", "invoice
 * paid"), published on the DomainEventBus inside the transaction of the state
 * change that made it true. Subscribers react in that same transaction, so
 * the change, its consequences and its outbox rows commit (or roll back)
 * together.
 */
export abstract class DomainEvent {
  constructor(readonly scope: { appId: number; mode: Mode }) {}

  /** The webhook event this fact becomes in the outbox; null for facts apps are not told about. */
  abstract outbox(): OutboxEntry | null;
}

/** A subscriber's class of event: the class itself (subclasses are delivered too). */
export type DomainEventClass<E extends DomainEvent = DomainEvent> = abstract new (
  ...args: never[]
) => E;
