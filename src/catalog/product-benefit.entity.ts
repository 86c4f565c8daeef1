import { Entity, JoinColumn, ManyToOne } from 'typeorm';

import type { Mode } from '../common/http/request-context';
import { BigIntColumn, CreatedAtColumn, IdColumn, ModeColumn } from '../database/columns';
import { Benefit } from './benefit.entity';

/** A benefit attached to a product (at most once), within one app and mode. */
@Entity('product_benefits')
export class ProductBenefit {
  @IdColumn() id: number;
  @BigIntColumn() appId: number;
  @ModeColumn() mode: Mode;
  @BigIntColumn() productId: number;
  @BigIntColumn() benefitId: number;
  @CreatedAtColumn() createdAt: Date;

  /** Loaded only by the catalog's batch reads (one joined query per page). */
  @ManyToOne(() => Benefit, { createForeignKeyConstraints: false })
  @JoinColumn({ name: 'benefit_id' })
  benefit?: Benefit;
}
