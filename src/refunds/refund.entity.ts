import { Column, Entity } from 'typeorm';

import type { Mode } from '../common/http/request-context';
import {
  BigIntColumn,
  CreatedAtColumn,
  IdColumn,
  ModeColumn,
  UpdatedAtColumn,
} from '../database/columns';

export const REFUND_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED'] as const;
export type RefundStatus = (typeof REFUND_STATUSES)[number];

/** Money given back on a captured payment, all or part of it. */
@Entity('refunds')
export class Refund {
  @IdColumn() id: number;
  @BigIntColumn() appId: number;
  @ModeColumn() mode: Mode;
  @BigIntColumn() paymentId: number;
  @BigIntColumn({ nullable: true }) invoiceId: number | null;
  @BigIntColumn() customerId: number;
  @BigIntColumn() amountMinor: number;
  @Column({ type: 'text' }) currency: string;
  @Column({ type: 'text' }) status: RefundStatus;
  @Column({ type: 'text', nullable: true }) reason: string | null;
  /**
   * Opened by the service itself (reason `excess_capture` or
   * `amount_mismatch`, decisions section 13): never waits for approval and
   * does not count toward the approval threshold of the app's own refunds.
   */
  @Column({ type: 'boolean', default: false }) automatic: boolean;
  /**
   * Its gateway publishes no refund call (decisions section 22: Nagad): it
   * is never sent to a gateway, never re-checked and never expires; it stays
   * PENDING (its amount reserved) until an operator pays the customer back
   * outside Joma and completes it (POST /admin/refunds/{id}/complete).
   */
  @Column({ type: 'boolean', default: false }) manual: boolean;
  /** Above the app's refundApprovalThresholdMinor: waits for an operator's approval. */
  @Column({ type: 'boolean' }) approvalRequired: boolean;
  @Column({ type: 'timestamptz', nullable: true }) approvedAt: Date | null;
  @Column({ type: 'text' }) gateway: string;
  @Column({ type: 'text', nullable: true }) gatewayRefundId: string | null;
  /** When it was last sent to the gateway (recorded before the request leaves). */
  @Column({ type: 'timestamptz', nullable: true }) submittedAt: Date | null;
  /** How many times it was sent (a re-send only after the gateway said it has no such refund). */
  @Column({ type: 'integer', default: 0 }) sendAttempts: number;
  /** The re-check does not ask about it again before this (a pause that grows with its age). */
  @Column({ type: 'timestamptz', nullable: true }) recheckAt: Date | null;
  /** A trip to the gateway holds it until this (or until the trip ends): no other caller takes it. */
  @Column({ type: 'timestamptz', nullable: true }) claimedUntil: Date | null;
  @Column({ type: 'text', nullable: true }) failureReason: string | null;
  @CreatedAtColumn() createdAt: Date;
  @UpdatedAtColumn() updatedAt: Date;
}
