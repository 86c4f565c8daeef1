import { Column, Entity } from 'typeorm';

import type { Mode } from '../common/http/request-context';
import {
  BigIntColumn,
  CreatedAtColumn,
  IdColumn,
  ModeColumn,
  UpdatedAtColumn,
} from '../database/columns';
import type { PriceInterval, PriceType } from './price-terms';

/** A way to pay for a product. Its terms never change; only `active` does. */
@Entity('prices')
export class Price {
  @IdColumn() id: number;
  @BigIntColumn() appId: number;
  @ModeColumn() mode: Mode;
  @BigIntColumn() productId: number;
  @Column({ type: 'text' }) type: PriceType;
  @BigIntColumn() amountMinor: number;
  @Column({ type: 'text' }) currency: string;
  @Column({ type: 'text', nullable: true }) interval: PriceInterval | null;
  @Column({ type: 'integer', nullable: true }) intervalCount: number | null;
  @Column({ type: 'integer', nullable: true }) trialDays: number | null;
  @Column({ type: 'boolean' }) active: boolean;
  @CreatedAtColumn() createdAt: Date;
  @UpdatedAtColumn() updatedAt: Date;
}
