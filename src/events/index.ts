/** The events (outbox) feature's public door; its catalogue (events/event-catalogue.ts) is a shared entry point. */
export { EventsModule } from './events.module';
export { type EventRecord, EventsService } from './events.service';
