import { Column, Entity } from 'typeorm';

import { BigIntColumn, IdColumn } from '../../database/columns';

/** The log of every attempt: when, where, how long, what came back. */
@Entity('webhook_delivery_attempts')
export class WebhookAttempt {
  @IdColumn() id: number;
  @BigIntColumn() deliveryId: number;
  @BigIntColumn() endpointId: number;
  @Column({ type: 'integer' }) attemptNumber: number;
  @Column({ type: 'text' }) url: string;
  /** The address connected to (after resolution and the SSRF guard). */
  @Column({ type: 'text', nullable: true }) targetAddress: string | null;
  /** X-Webhook-Timestamp of the attempt; null when nothing was sent. */
  @BigIntColumn({ nullable: true }) signedTimestamp: number | null;
  @Column({ type: 'timestamptz' }) startedAt: Date;
  @Column({ type: 'integer' }) durationMs: number;
  @Column({ type: 'integer', nullable: true }) statusCode: number | null;
  /** First 1 KiB of the response body. */
  @Column({ type: 'text', nullable: true }) responseExcerpt: string | null;
  @Column({ type: 'text', nullable: true }) error: string | null;
  @Column({ type: 'text', nullable: true }) worker: string | null;
}
