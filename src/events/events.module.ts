import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';

import { EventRecord } from './event.entity';
import { EventsRepository } from './events.repository';
import { EventsService } from './events.service';
import { OutboxSubscriber } from './outbox.subscriber';

@Module({
  imports: [TypeOrmModule.forFeature([EventRecord])],
  providers: [EventsRepository, EventsService, OutboxSubscriber],
  exports: [EventsService],
})
export class EventsModule {}
