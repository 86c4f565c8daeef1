import { Injectable } from '@nestjs/common';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { EntitySql } from '../../database/entity-sql';
import { SandboxSession, SandboxStatus } from './sandbox-session.entity';

/** Every query of the sandbox_sessions table (the sandbox gateway's own side). */
@Injectable()
export class SandboxSessionsRepository {
  constructor(private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>) {}

  private get sessions() {
    return this.txHost.tx.getRepository(SandboxSession);
  }

  private sql?: EntitySql<SandboxSession>;

  /** Every TEST payment's checkout: one plain INSERT (see EntitySql). */
  async insert(fields: Omit<SandboxSession, 'id' | 'createdAt'>): Promise<void> {
    this.sql ??= EntitySql.of(this.txHost.tx.connection, SandboxSession);
    await this.sql.insert(this.txHost.tx, fields);
  }

  find(sessionId: string): Promise<SandboxSession | null> {
    return this.sessions.findOne({ where: { sessionId } });
  }

  /** Moves an OPEN session to `status`; a session already completed or closed keeps its outcome. */
  async completeOpen(
    sessionId: string,
    status: SandboxStatus,
    txnId: string | null,
    at: Date,
  ): Promise<void> {
    await this.sessions
      .createQueryBuilder()
      .update()
      .set({ status, txnId, completedAt: at })
      .where('session_id = :sessionId AND status = :open', { sessionId, open: 'OPEN' })
      .execute();
  }

  /** Adds a refund to a captured session unless it would exceed the capture; false when refused. */
  async addRefund(sessionId: string, amountMinor: number): Promise<boolean> {
    const result = await this.sessions
      .createQueryBuilder()
      .update()
      .set({ refundedMinor: () => `refunded_minor + ${Number(amountMinor)}` })
      .where(
        'session_id = :sessionId AND status = :captured AND refunded_minor + :amount <= amount_minor',
        { sessionId, captured: 'CAPTURED', amount: amountMinor },
      )
      .execute();
    return (result.affected ?? 0) > 0;
  }

  /** Sessions captured on a UTC day, in id order. */
  capturedOn(day: string): Promise<SandboxSession[]> {
    return this.sessions
      .createQueryBuilder('s')
      .where(`s.status = 'CAPTURED' AND (s.completed_at AT TIME ZONE 'Asia/Dhaka')::date = :day`, {
        day,
      })
      .orderBy('s.id')
      .getMany();
  }
}
