import { Global, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';

import { DomainEventBus } from './domain-event-bus';

/** The in-transaction domain-event bus, available to every feature. */
@Global()
@Module({
  imports: [DiscoveryModule],
  providers: [DomainEventBus],
  exports: [DomainEventBus],
})
export class DomainEventsModule {}
