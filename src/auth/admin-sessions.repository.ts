import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import { sql } from '../database/sql';
import { AdminSession } from './admin-user.entity';

/** Every query of the admin_sessions table (server-side, revocable JWT sessions). */
@Injectable()
export class AdminSessionsRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  private get sessions() {
    return this.txHost.tx.getRepository(AdminSession);
  }

  async insert(fields: Pick<AdminSession, 'userId' | 'tokenId' | 'expiresAt'>): Promise<void> {
    await this.sessions.insert({ ...fields, revokedAt: null });
  }

  byTokenId(tokenId: string): Promise<AdminSession | null> {
    return this.sessions.findOne({ where: { tokenId } });
  }

  async revoke(id: number, at: Date): Promise<void> {
    await this.sessions.update({ id }, { revokedAt: at });
  }

  /** Revokes every live session of the user, except `keepId` when given. */
  async revokeAllOf(userId: number, at: Date, keepId?: number): Promise<void> {
    await sql(this.txHost.tx).run(
      `UPDATE admin_sessions SET revoked_at = $2
        WHERE user_id = $1 AND revoked_at IS NULL AND ($3::bigint IS NULL OR id <> $3)`,
      [userId, at, keepId ?? null],
    );
  }

  /** Deletes sessions that expired or were revoked before `before`; how many. */
  async purgeEndedBefore(before: Date): Promise<number> {
    return sql(this.txHost.tx).run(
      'DELETE FROM admin_sessions WHERE expires_at < $1 OR revoked_at < $1',
      [before],
    );
  }
}
