import { SetMetadata } from '@nestjs/common';

import type { DomainEventClass } from './domain-event';

export const DOMAIN_EVENT_HANDLER = 'joma:domain-event-handler';

/**
 * When subscribers of one fact run, lowest first. Features that change state
 * in reaction (an invoice counting a capture) run at SETTLE; the outbox
 * records the fact last, once every subscriber has said what it adds (the
 * capture's excess is known only after the invoice has counted it).
 * NOTIFY decides messages to payers from what settling decided (a receipt
 * for the amount the invoice counted). AFTER_SETTLE is for reactions to what
 * settling decided (the refund of a capture's excess).
 */
export const HandlerOrder = { SETTLE: 0, NOTIFY: 400, AFTER_SETTLE: 500, OUTBOX: 1000 } as const;

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
