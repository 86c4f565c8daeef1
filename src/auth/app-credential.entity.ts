import { Column, Entity } from 'typeorm';

import type { Mode } from '../common/http/request-context';
import { BigIntColumn, CreatedAtColumn, IdColumn, ModeColumn } from '../database/columns';

/** One key/secret pair per app and mode; the secret is kept only as SHA-256. */
@Entity('app_credentials')
export class AppCredential {
  @IdColumn() id: number;
  @BigIntColumn() appId: number;
  @ModeColumn() mode: Mode;
  @Column({ type: 'text' }) apiKey: string;
  @Column({ type: 'text' }) secretHash: string;
  /** The app's name and status, kept in step by the apps feature (one-table key check). */
  @Column({ type: 'text' }) appName: string;
  @Column({ type: 'text' }) appStatus: string;
  @CreatedAtColumn() createdAt: Date;
  @Column({ type: 'timestamptz', nullable: true }) rotatedAt: Date | null;
}
