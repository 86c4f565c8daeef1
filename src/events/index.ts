/** The events (outbox) feature's public door; its catalogue (events/event-catalogue.ts) is a shared entry point. */
export { EVENT_TYPES, type EventType } from './event-catalogue';
export { eventSchemaName, webhookEventSchemas } from './event-payloads';
export { EventsModule } from './events.module';
export { type EventRecord, EventsService } from './events.service';
