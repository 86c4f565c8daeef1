import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import { EntitySql } from '../../database/entity-sql';
import { sql } from '../../database/sql';
import { SandboxSession, SandboxStatus } from './sandbox-session.entity';

/** Every query of the sandbox_sessions table (the sandbox gateway's own side). */
@Injectable()
export class SandboxSessionsRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  private compiled?: EntitySql<SandboxSession>;

  /** The table's select list, hydration and INSERT (see EntitySql). */
  private get sessions(): EntitySql<SandboxSession> {
    return (this.compiled ??= EntitySql.of(this.txHost.tx.connection, SandboxSession));
  }

  /** Every TEST payment's checkout: one plain INSERT (see EntitySql). */
  async insert(fields: Omit<SandboxSession, 'id' | 'createdAt'>): Promise<void> {
    await this.sessions.insert(this.txHost.tx, fields);
  }

  async find(sessionId: string): Promise<SandboxSession | null> {
    const s = this.sessions;
    const [row] = await s.rows(
      this.txHost.tx,
      `SELECT ${s.selectList} FROM ${s.table} WHERE session_id = $1 LIMIT 1`,
      [sessionId],
    );
    return row ?? null;
  }

  /** Moves an OPEN session to `status`; a session already completed or closed keeps its outcome. */
  async completeOpen(
    sessionId: string,
    status: SandboxStatus,
    txnId: string | null,
    at: Date,
  ): Promise<boolean> {
    const changed = await sql(this.txHost.tx).run(
      `UPDATE sandbox_sessions SET status = $2, txn_id = $3, completed_at = $4
        WHERE session_id = $1 AND status = 'OPEN'`,
      [sessionId, status, txnId, at],
    );
    return changed > 0;
  }

  /**
   * Applies a refund to a captured session unless it would exceed the
   * capture; the same reference twice is applied once (true both times).
   * False when refused.
   */
  async addRefund(sessionId: string, amountMinor: number, reference: string): Promise<boolean> {
    const changed = await sql(this.txHost.tx).run(
      `UPDATE sandbox_sessions
          SET refunded_minor = refunded_minor + $2, refund_references = refund_references || $3::text
        WHERE session_id = $1 AND status = 'CAPTURED' AND refunded_minor + $2 <= amount_minor
          AND NOT ($3 = ANY (refund_references))`,
      [sessionId, amountMinor, reference],
    );
    return changed > 0 || this.hasRefund(sessionId, reference);
  }

  /** Whether the session applied the refund with this reference. */
  async hasRefund(sessionId: string, reference: string): Promise<boolean> {
    const rows = await sql(this.txHost.tx).rows<unknown>(
      `SELECT 1 FROM sandbox_sessions WHERE session_id = $1 AND $2 = ANY (refund_references)`,
      [sessionId, reference],
    );
    return rows.length > 0;
  }

  /** Sessions captured on a UTC day, in id order. */
  capturedOn(day: string): Promise<SandboxSession[]> {
    const s = this.sessions;
    return s.rows(
      this.txHost.tx,
      `SELECT ${s.selectList} FROM ${s.table}
        WHERE status = 'CAPTURED' AND (completed_at AT TIME ZONE 'Asia/Dhaka')::date = $1
        ORDER BY id ASC`,
      [day],
    );
  }
}
