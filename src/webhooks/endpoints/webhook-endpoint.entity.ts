import { Column, Entity } from 'typeorm';

import type { Mode } from '../../common/http/request-context';
import {
  BigIntColumn,
  CreatedAtColumn,
  IdColumn,
  ModeColumn,
  UpdatedAtColumn,
} from '../../database/columns';

/** `events` value that subscribes to every catalogued type, present and future. */
export const ALL_EVENTS = '*';

/** An app's webhook endpoint in one mode (at most 5 live ones per app and mode). */
@Entity('webhook_endpoints')
export class WebhookEndpoint {
  @IdColumn() id: number;
  @BigIntColumn() appId: number;
  @ModeColumn() mode: Mode;
  @Column({ type: 'text' }) url: string;
  @Column({ type: 'text', nullable: true }) description: string | null;
  /** ['*'] or an explicit list of catalogue types (which never grows). */
  @Column({ type: 'text', array: true }) events: string[];
  @Column({ type: 'boolean' }) enabled: boolean;
  /** AES-256-GCM sealed signing secret; null only for a legacy endpoint before its first delivery. */
  @Column({ type: 'text', nullable: true, select: false }) secretCiphertext: string | null;
  @Column({ type: 'timestamptz', nullable: true }) secretRotatedAt: Date | null;
  /** Carried over from the older single `apps.webhook_url` by a migration, unvalidated. */
  @Column({ type: 'boolean' }) legacy: boolean;
  @CreatedAtColumn() createdAt: Date;
  @UpdatedAtColumn() updatedAt: Date;
  @Column({ type: 'timestamptz', nullable: true }) deletedAt: Date | null;
}

export function subscribes(endpointEvents: readonly string[], type: string): boolean {
  return endpointEvents.includes(ALL_EVENTS) || endpointEvents.includes(type);
}
