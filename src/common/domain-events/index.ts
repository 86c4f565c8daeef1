export { DomainEvent, type DomainEventClass, type OutboxEntry } from './domain-event';
export { DomainEventBus } from './domain-event-bus';
export { DomainEventsModule } from './domain-events.module';
export { HandlerOrder, OnDomainEvent } from './on-domain-event.decorator';
