import { Column, Entity } from 'typeorm';

import type { Mode } from '../common/http/request-context';
import { BigIntColumn, IdColumn, ModeColumn } from '../database/columns';

export const NOTIFICATION_CHANNELS = ['EMAIL', 'SMS'] as const;
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number];
export const NOTIFICATION_KINDS = [
  'RECEIPT',
  'DUNNING_REMINDER',
  'INVOICE',
  'TRIAL_ENDING',
] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];
export const NOTIFICATION_STATUSES = ['QUEUED', 'SENT', 'FAILED', 'SKIPPED', 'CAPTURED'] as const;
export type NotificationStatus = (typeof NOTIFICATION_STATUSES)[number];
export type Language = 'bn' | 'en';

/**
 * A message to a payer (decisions section 16), decided in the transaction of
 * its fact: one row per (fact, channel), never two (unique key). Rendered
 * when decided; sent by the worker after commit.
 */
@Entity('notifications')
export class Notification {
  @IdColumn() id: number;
  @BigIntColumn() appId: number;
  @ModeColumn() mode: Mode;
  /** What it is about, e.g. `receipt:payment:42`, `dunning:invoice:7:2`. */
  @Column({ type: 'text' }) factKey: string;
  @Column({ type: 'text' }) channel: NotificationChannel;
  @Column({ type: 'text' }) kind: NotificationKind;
  /** The email address or the phone number (+8801XXXXXXXXX). */
  @Column({ type: 'text' }) recipient: string;
  @Column({ type: 'text' }) status: NotificationStatus;
  @BigIntColumn({ nullable: true }) invoiceId: number | null;
  @BigIntColumn({ nullable: true }) paymentId: number | null;
  @BigIntColumn({ nullable: true }) subscriptionId: number | null;
  @Column({ type: 'text' }) language: Language;
  @Column({ type: 'text', nullable: true }) subject: string | null;
  @Column({ type: 'text' }) bodyText: string;
  @Column({ type: 'text', nullable: true }) bodyHtml: string | null;
  @Column({ type: 'integer' }) attempts: number;
  @Column({ type: 'text', nullable: true }) lastError: string | null;
  @Column({ type: 'timestamptz', nullable: true }) nextAttemptAt: Date | null;
  /** When a worker claimed it (its claim's token), until `claimedUntil`. */
  @Column({ type: 'timestamptz', nullable: true }) sendingSince: Date | null;
  @Column({ type: 'timestamptz', nullable: true }) claimedUntil: Date | null;
  /**
   * When the claimant handed it to the SMTP server or the SMS API (committed
   * just before the call). A claim that ran out without it is taken by
   * another worker; one that ran out with it is FAILED, outcome unknown.
   */
  @Column({ type: 'timestamptz', nullable: true }) handedOverAt: Date | null;
  /** The first try whose outcome was unknown (an SMS asked again under its `csms_id`). */
  @Column({ type: 'timestamptz', nullable: true }) outcomeUnknownSince: Date | null;
  /** Emails: the sender's display name, the merchant the message names (null: `MAIL_FROM`'s). */
  @Column({ type: 'text', nullable: true }) senderName: string | null;
  @Column({ type: 'timestamptz' }) createdAt: Date;
  @Column({ type: 'timestamptz', nullable: true }) sentAt: Date | null;
}

@Entity('sms_credentials')
export class SmsCredential {
  @Column({ type: 'bigint', primary: true }) appId: string;
  @Column({ type: 'enum', enum: ['TEST', 'LIVE'], enumName: 'mode', primary: true }) mode: Mode;
  @Column({ type: 'text', primary: true }) provider: string;
  @Column({ type: 'text' }) sealed: string;
  @Column({ type: 'timestamptz' }) updatedAt: Date;
}
