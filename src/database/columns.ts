import { Column, CreateDateColumn, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

import { bigintTransformer } from '../common/money/money';

/** BIGSERIAL primary key as a JS number. */
export const IdColumn = () =>
  PrimaryGeneratedColumn({ type: 'bigint', transformer: bigintTransformer } as never);
/** BIGINT (money, foreign keys) as a JS number with the safe-integer guard. */
export const BigIntColumn = (opts: { nullable?: boolean } = {}) =>
  Column({ type: 'bigint', transformer: bigintTransformer, nullable: opts.nullable ?? false });
export const ModeColumn = () => Column({ type: 'enum', enum: ['TEST', 'LIVE'], enumName: 'mode' });
export const CreatedAtColumn = () => CreateDateColumn({ type: 'timestamptz' });
export const UpdatedAtColumn = () => UpdateDateColumn({ type: 'timestamptz' });
