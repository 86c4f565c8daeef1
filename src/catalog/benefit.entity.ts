import { Column, Entity } from 'typeorm';

import type { Mode } from '../common/http/request-context';
import {
  BigIntColumn,
  CreatedAtColumn,
  IdColumn,
  ModeColumn,
  UpdatedAtColumn,
} from '../database/columns';

/** An entitlement an app can attach to products; created inactive. */
@Entity('benefits')
export class Benefit {
  @IdColumn() id: number;
  @BigIntColumn() appId: number;
  @ModeColumn() mode: Mode;
  @Column({ type: 'text' }) lookupKey: string;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'text', nullable: true }) metadata: string | null;
  @Column({ type: 'boolean' }) active: boolean;
  @CreatedAtColumn() createdAt: Date;
  @UpdatedAtColumn() updatedAt: Date;
}
