import { Column, Entity, PrimaryColumn } from 'typeorm';

import type { Mode } from '../common/http/request-context';
import { bigintTransformer } from '../common/money/money';
import {
  BigIntColumn,
  CreatedAtColumn,
  IdColumn,
  ModeColumn,
  UpdatedAtColumn,
} from '../database/columns';
import type { InvoiceStatus } from './invoice-state';

@Entity('invoices')
export class Invoice {
  @IdColumn() id: number;
  @BigIntColumn() appId: number;
  @ModeColumn() mode: Mode;
  /**
   * Never null once committed (a deferred check at commit), so lists sort it
   * as NOT NULL; the column allows null only inside the creating transaction,
   * until the number is taken, last (see InvoicesRepository.assignNumber).
   */
  @Column({ type: 'text' }) number: string;
  @Column({ type: 'text' }) status: InvoiceStatus;
  @BigIntColumn() customerId: number;
  @BigIntColumn({ nullable: true }) subscriptionId: number | null;
  @BigIntColumn({ nullable: true }) priceId: number | null;
  @BigIntColumn() totalMinor: number;
  @BigIntColumn() amountPaidMinor: number;
  @Column({ type: 'text' }) currency: string;
  /** YYYY-MM-DD */
  @Column({ type: 'date' }) dueDate: string;
  @Column({ type: 'timestamptz' }) issuedAt: Date;
  @Column({ type: 'text' }) payToken: string;
  @Column({ type: 'jsonb', nullable: true }) metadata: Record<string, unknown> | null;
  @Column({ type: 'timestamptz', nullable: true }) voidedAt: Date | null;
  /** The payer's language for messages (decisions 16); null: the app's defaultLanguage. */
  @Column({ type: 'text', nullable: true }) customerLanguage: 'bn' | 'en' | null;
  /** Send the invoice with its pay link to the payer when issued. */
  @Column({ type: 'boolean', default: false }) notifyCustomer: boolean;
  @CreatedAtColumn() createdAt: Date;
  @UpdatedAtColumn() updatedAt: Date;
}

@Entity('invoice_line_items')
export class InvoiceLineItem {
  @IdColumn() id: number;
  @BigIntColumn() invoiceId: number;
  @Column({ type: 'integer' }) position: number;
  @Column({ type: 'text' }) description: string;
  @Column({ type: 'integer' }) qty: number;
  @BigIntColumn() unitAmountMinor: number;
  @BigIntColumn() lineTotalMinor: number;
}

/** Per-app branding of invoices and the hosted pay page. */
@Entity('invoice_templates')
export class InvoiceTemplate {
  @PrimaryColumn({ type: 'bigint', transformer: bigintTransformer }) appId: number;
  /** One template per app and mode: TEST keys never change LIVE pay pages. */
  @PrimaryColumn({ type: 'enum', enum: ['TEST', 'LIVE'], enumName: 'mode' }) mode: Mode;
  @Column({ type: 'text', nullable: true }) logoUrl: string | null;
  @Column({ type: 'text', nullable: true }) companyName: string | null;
  @Column({ type: 'text', nullable: true }) companyAddress: string | null;
  @Column({ type: 'text', nullable: true }) contactDetails: string | null;
  @Column({ type: 'text', nullable: true }) footerNote: string | null;
  @Column({ type: 'text', nullable: true }) accentColor: string | null;
  @CreatedAtColumn() createdAt: Date;
  @UpdatedAtColumn() updatedAt: Date;
}
