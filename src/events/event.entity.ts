import { Column, Entity } from 'typeorm';

import type { Mode } from '../common/http/request-context';
import { bigintTransformer } from '../common/money/money';
import { IdColumn } from '../database/columns';
import type { EventType } from './event-catalogue';

/** One recorded event (the outbox row), written in the business transaction. */
@Entity('events')
export class EventRecord {
  @IdColumn()
  id: number;

  @Column({ type: 'bigint', transformer: bigintTransformer })
  appId: number;

  @Column({ type: 'enum', enum: ['TEST', 'LIVE'], enumName: 'mode' })
  mode: Mode;

  @Column({ type: 'text' })
  type: EventType;

  @Column({ type: 'jsonb' })
  data: Record<string, unknown>;

  @Column({ type: 'timestamptz' })
  createdAt: Date;
}
