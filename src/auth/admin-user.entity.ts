import { Column, Entity } from 'typeorm';

import { BigIntColumn, CreatedAtColumn, IdColumn, UpdatedAtColumn } from '../database/columns';

export type AdminUserStatus = 'ACTIVE' | 'DISABLED';

@Entity('admin_users')
export class AdminUser {
  @IdColumn() id: number;
  @Column({ type: 'text' }) email: string;
  @Column({ type: 'text' }) name: string;
  @Column({ type: 'text' }) passwordHash: string;
  @Column({ type: 'text' }) status: AdminUserStatus;
  @Column({ type: 'boolean' }) superAdmin: boolean;
  @Column({ type: 'text', array: true }) permissions: string[];
  /** The apps this user may see and act on (section 15); null = every app. */
  @Column({
    type: 'bigint',
    array: true,
    nullable: true,
    transformer: {
      from: (v: string[] | null) => (v === null ? null : v.map(Number)),
      to: (v: number[] | null | undefined) => v,
    },
  })
  appIds: number[] | null;
  @Column({ type: 'timestamptz', nullable: true }) lastLoginAt: Date | null;
  @CreatedAtColumn() createdAt: Date;
  @UpdatedAtColumn() updatedAt: Date;
}

@Entity('admin_sessions')
export class AdminSession {
  @IdColumn() id: number;
  @BigIntColumn() userId: number;
  @Column({ type: 'text' }) tokenId: string;
  @Column({ type: 'timestamptz' }) expiresAt: Date;
  @Column({ type: 'timestamptz', nullable: true }) revokedAt: Date | null;
  @CreatedAtColumn() createdAt: Date;
}
