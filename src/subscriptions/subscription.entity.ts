import { Column, Entity } from 'typeorm';

import type { PriceInterval } from '../catalog';
import type { Mode } from '../common/http/request-context';
import {
  BigIntColumn,
  CreatedAtColumn,
  IdColumn,
  ModeColumn,
  UpdatedAtColumn,
} from '../database/columns';
import type { SubscriptionStatus } from './subscription-state';

/**
 * A customer's subscription to a RECURRING price. The price's terms are
 * copied at purchase (prices never change; this keeps renewals to one row).
 * Dates are Asia/Dhaka calendar dates.
 */
@Entity('subscriptions')
export class Subscription {
  @IdColumn() id: number;
  @BigIntColumn() appId: number;
  @ModeColumn() mode: Mode;
  @BigIntColumn() customerId: number;
  @BigIntColumn() priceId: number;
  @BigIntColumn() productId: number;
  @Column({ type: 'text' }) status: SubscriptionStatus;
  @Column({ type: 'text' }) productName: string;
  @BigIntColumn() amountMinor: number;
  @Column({ type: 'text' }) currency: string;
  @Column({ type: 'text' }) interval: PriceInterval;
  @Column({ type: 'integer' }) intervalCount: number;
  @Column({ type: 'date' }) startDate: string;
  @Column({ type: 'date', nullable: true }) trialEndDate: string | null;
  @Column({ type: 'boolean' }) trialWillEndSent: boolean;
  /** Periods are counted from this date (Stripe's anchor); null until the first period starts. */
  @Column({ type: 'date', nullable: true }) billingAnchor: string | null;
  @Column({ type: 'integer' }) periodIndex: number;
  @Column({ type: 'date', nullable: true }) currentPeriodStart: string | null;
  @Column({ type: 'date', nullable: true }) nextBillingDate: string | null;
  @Column({ type: 'boolean' }) firstInvoicePaid: boolean;
  /** The invoice the subscription is waiting to be paid, if any. */
  @BigIntColumn({ nullable: true }) openInvoiceId: number | null;
  @Column({ type: 'date', nullable: true }) openInvoiceDueDate: string | null;
  @Column({ type: 'timestamptz', nullable: true }) pastDueSince: Date | null;
  /** Dunning reminders sent for the open invoice (1, 3 and 7 days overdue; decisions 16). */
  @Column({ type: 'integer', default: 0 }) dunningRemindersSent: number;
  /** From the purchase: every renewal invoice carries them. */
  @Column({ type: 'text', nullable: true }) customerLanguage: 'bn' | 'en' | null;
  @Column({ type: 'boolean', default: false }) notifyCustomer: boolean;
  @Column({ type: 'boolean' }) cancelAtPeriodEnd: boolean;
  @Column({ type: 'timestamptz', nullable: true }) canceledAt: Date | null;
  /** How far this subscription's own clock runs ahead of the wall clock (TEST: the advance helper). */
  @BigIntColumn() clockOffsetMs: number;
  /** Wall-clock time of its next scheduled moment (null: nothing scheduled). */
  @Column({ type: 'timestamptz', nullable: true }) nextActionAt: Date | null;
  @CreatedAtColumn() createdAt: Date;
  @UpdatedAtColumn() updatedAt: Date;
}
