import { Column, Entity } from 'typeorm';

import type { Mode } from '../../common/http/request-context';
import { BigIntColumn, IdColumn, ModeColumn } from '../../database/columns';
import type { DeliveryStatus } from './delivery-status';

/**
 * One event for one endpoint. Its id is the envelope `id` and X-Webhook-Id
 * on every attempt and re-send; its body bytes are fixed at creation.
 * An event of a mode without endpoints gets one row with no endpoint,
 * UNDELIVERABLE / NO_ENDPOINT_CONFIGURED.
 */
@Entity('webhook_deliveries')
export class WebhookDelivery {
  @IdColumn() id: number;
  @BigIntColumn() eventId: number;
  @BigIntColumn({ nullable: true }) endpointId: number | null;
  @BigIntColumn() appId: number;
  @ModeColumn() mode: Mode;
  @Column({ type: 'text' }) eventType: string;
  @Column({ type: 'text', select: false }) body: string;
  @Column({ type: 'text' }) status: DeliveryStatus;
  /** Attempts made in all (every cycle). */
  @Column({ type: 'integer' }) attempts: number;
  /** Attempts since creation or the last re-send; drives the retry schedule. */
  @Column({ type: 'integer' }) cycleAttempts: number;
  @Column({ type: 'timestamptz', nullable: true }) nextAttemptAt: Date | null;
  @Column({ type: 'timestamptz', nullable: true }) lockedUntil: Date | null;
  @Column({ type: 'text', nullable: true }) lockedBy: string | null;
  @Column({ type: 'timestamptz', nullable: true }) lastAttemptAt: Date | null;
  @Column({ type: 'integer', nullable: true }) lastStatusCode: number | null;
  @Column({ type: 'text', nullable: true }) lastError: string | null;
  @Column({ type: 'timestamptz', nullable: true }) deliveredAt: Date | null;
  /** When its event was recorded (null on rows older than this column). */
  @Column({ type: 'timestamptz', nullable: true }) eventRecordedAt: Date | null;
  @Column({ type: 'timestamptz' }) createdAt: Date;
  @Column({ type: 'timestamptz' }) updatedAt: Date;
}
