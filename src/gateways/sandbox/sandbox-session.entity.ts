import { Column, Entity } from 'typeorm';

import { BigIntColumn, CreatedAtColumn, IdColumn } from '../../database/columns';

/** CLOSED: the merchant cancelled the payment (or voided its invoice); the checkout takes nothing. */
export type SandboxStatus = 'OPEN' | 'CAPTURED' | 'FAILED' | 'CANCELLED' | 'CLOSED';

/** The sandbox gateway's own record of a checkout (its side of the world). */
@Entity('sandbox_sessions')
export class SandboxSession {
  @IdColumn() id: number;
  @Column({ type: 'text' }) sessionId: string;
  @Column({ type: 'text' }) paymentReference: string;
  @Column({ type: 'text' }) merchantName: string;
  @BigIntColumn() amountMinor: number;
  @Column({ type: 'text' }) currency: string;
  @Column({ type: 'text', nullable: true }) description: string | null;
  @Column({ type: 'text' }) returnUrl: string;
  @Column({ type: 'text' }) status: SandboxStatus;
  @Column({ type: 'text', nullable: true }) txnId: string | null;
  @BigIntColumn() refundedMinor: number;
  @Column({ type: 'timestamptz', nullable: true }) completedAt: Date | null;
  @CreatedAtColumn() createdAt: Date;
}
