import { Column, Entity } from 'typeorm';

import type { Mode } from '../common/http/request-context';
import { BigIntColumn, IdColumn, ModeColumn } from '../database/columns';

/** One grant of a benefit to a customer, from a subscription or a one-time invoice; revoked_at ends it. */
@Entity('entitlements')
export class Entitlement {
  @IdColumn() id: number;
  @BigIntColumn() appId: number;
  @ModeColumn() mode: Mode;
  @BigIntColumn() customerId: number;
  @BigIntColumn() benefitId: number;
  @BigIntColumn({ nullable: true }) subscriptionId: number | null;
  @BigIntColumn({ nullable: true }) invoiceId: number | null;
  @Column({ type: 'timestamptz' }) grantedAt: Date;
  @Column({ type: 'timestamptz', nullable: true }) revokedAt: Date | null;
}
