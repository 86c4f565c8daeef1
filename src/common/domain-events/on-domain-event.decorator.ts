import { SetMetadata } from '@nestjs/common';

import type { DomainEventClass } from './domain-event';

export const DOMAIN_EVENT_HANDLER = 'joma:domain-event-handler';

/**
 * When subscribers of one fact run, lowest first: every feature reacting to
 * it at SETTLE (the default), the outbox at OUTBOX, last, once the fact's
 * consequences are written. Nothing runs in between: a reaction that needs
 * what another feature decided subscribes to the fact that feature publishes
 * (the excess refund and the receipt to CaptureSettled, not PaymentSucceeded).
 */
export const HandlerOrder = { SETTLE: 0, OUTBOX: 1000 } as const;

export interface DomainEventHandlerMeta {
  event: DomainEventClass;
  order: number;
}

/**
 * Marks a provider method as a subscriber of a fact (and of its subclasses).
 * It runs synchronously inside the publisher's transaction; what it throws
 * rolls the whole change back. The bus finds these when the app starts, so
 * a subscription is visible in the code as this decorator plus an import of
 * the event class from its owner's door.
 */
export function OnDomainEvent(event: DomainEventClass, opts: { order?: number } = {}) {
  return SetMetadata<string, DomainEventHandlerMeta>(DOMAIN_EVENT_HANDLER, {
    event,
    order: opts.order ?? HandlerOrder.SETTLE,
  });
}
