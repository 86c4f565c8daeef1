import { Column, Entity } from 'typeorm';

import type { Mode } from '../common/http/request-context';
import {
  BigIntColumn,
  CreatedAtColumn,
  IdColumn,
  ModeColumn,
  UpdatedAtColumn,
} from '../database/columns';
import type { PaymentStatus } from './payment-state';

export const RISK_LEVELS = ['NORMAL', 'HIGH'] as const;
export type RiskLevel = (typeof RISK_LEVELS)[number];

@Entity('payments')
export class Payment {
  @IdColumn() id: number;
  @BigIntColumn() appId: number;
  @ModeColumn() mode: Mode;
  @Column({ type: 'text' }) reference: string;
  @Column({ type: 'text' }) status: PaymentStatus;
  @BigIntColumn() amountMinor: number;
  /** What a capture brought beyond what its invoice still needed (0 when none); to be refunded. */
  @BigIntColumn() excessMinor: number;
  /** What succeeded refunds gave back (never more than amountMinor). */
  @BigIntColumn() amountRefundedMinor: number;
  @Column({ type: 'text' }) currency: string;
  @Column({ type: 'text' }) gateway: string;
  @Column({ type: 'text', nullable: true }) gatewaySessionId: string | null;
  @Column({ type: 'text', nullable: true }) gatewayTxnId: string | null;
  @Column({ type: 'text', nullable: true }) paymentMethod: string | null;
  @Column({ type: 'text', nullable: true }) paymentMethodLabel: string | null;
  @Column({ type: 'text', nullable: true }) paymentMethodBrand: string | null;
  @Column({ type: 'text', nullable: true }) paymentMethodIssuer: string | null;
  @Column({ type: 'text', nullable: true }) paymentMethodAccount: string | null;
  @Column({ type: 'text', nullable: true }) checkoutUrl: string | null;
  @Column({ type: 'text', nullable: true }) successUrl: string | null;
  @Column({ type: 'text', nullable: true }) failUrl: string | null;
  @Column({ type: 'text', nullable: true }) cancelUrl: string | null;
  @BigIntColumn() customerId: number;
  @BigIntColumn({ nullable: true }) invoiceId: number | null;
  @Column({ type: 'text', nullable: true }) description: string | null;
  @Column({ type: 'jsonb', nullable: true }) metadata: Record<string, unknown> | null;
  @Column({ type: 'timestamptz' }) expiresAt: Date;
  @Column({ type: 'timestamptz', nullable: true }) succeededAt: Date | null;
  /** SSLCommerz's risk verdict on the capture (`HIGH`: review before delivering). */
  @Column({ type: 'text', default: 'NORMAL' }) riskLevel: RiskLevel;
  /** Why it failed, in the gateway's own words (code and message; never credentials). */
  @Column({ type: 'text', nullable: true }) failureReason: string | null;
  /** When the pay button last asked the gateway about this checkout (at most once per 30 s). */
  @Column({ type: 'timestamptz', nullable: true }) statusCheckedAt: Date | null;
  /**
   * A CANCELLED payment whose checkout the gateway did not confirm closed
   * may still be paid there: it is asked about until then (72 hours after
   * the cancel; decisions section 13). Null otherwise.
   */
  @Column({ type: 'timestamptz', nullable: true }) checkoutOpenUntil: Date | null;
  @CreatedAtColumn() createdAt: Date;
  @UpdatedAtColumn() updatedAt: Date;
}
