import { Column, Entity } from 'typeorm';

import { BigIntColumn, CreatedAtColumn, IdColumn, UpdatedAtColumn } from '../database/columns';

export type AppStatus = 'ACTIVE' | 'SUSPENDED';

/** A client application and its settings (defaults and bounds in app-settings.ts). */
@Entity('apps')
export class App {
  @IdColumn() id: number;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'text' }) status: AppStatus;
  @Column({ type: 'text', nullable: true }) logoUrl: string | null;
  @BigIntColumn() refundApprovalThresholdMinor: number;
  @Column({ type: 'boolean' }) receiptsEnabled: boolean;
  @Column({ type: 'boolean' }) dunningEnabled: boolean;
  /** The language of messages to payers whose invoice names none (decisions 16). */
  @Column({ type: 'text', default: 'bn' }) defaultLanguage: 'bn' | 'en';
  @BigIntColumn() minAmountMinor: number;
  @BigIntColumn() maxAmountMinor: number;
  @Column({ type: 'integer' }) paymentExpiryMinutes: number;
  /** Comma-separated origins; empty means any https URL. */
  @Column({ type: 'text' }) returnUrlAllowlist: string;
  @Column({ type: 'text', nullable: true }) defaultSuccessUrl: string | null;
  @Column({ type: 'text', nullable: true }) defaultFailUrl: string | null;
  @Column({ type: 'text', nullable: true }) defaultCancelUrl: string | null;
  @CreatedAtColumn() createdAt: Date;
  @UpdatedAtColumn() updatedAt: Date;
}
