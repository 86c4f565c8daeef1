import type { Writable } from 'node:stream';
import type { PoolClient } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import type { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';
import { hotRows } from './hot-query';

/** The query runner's transaction state, which TypeORM keeps as protected fields. */
type Runner = PostgresQueryRunner & { transactionDepth: number };

/**
 * `dataSource.transaction(fn)` as TypeORM runs it (a query runner holding one
 * pooled connection, its EntityManager handed to `fn`), with START
 * TRANSACTION, COMMIT and ROLLBACK sent straight on that connection instead of
 * through the runner's `startTransaction` / `commitTransaction`, which wrap
 * each in four subscriber broadcasts, query logging hooks and a result object
 * (Joma registers no TypeORM subscribers). Profiled at ~25-40 us of a payment
 * request on a 2-core VM (bench/README.md, "Lean transactions").
 *
 * The runner's state is what TypeORM's own transaction leaves it in, so
 * everything inside behaves as before: the runner's `isTransactionActive`
 * (which `hotRows` reads to use the connection), and a nested transaction
 * becomes a SAVEPOINT at depth 1 (`leanSavepoint`, or TypeORM's own).
 */
export async function leanTransaction<T>(
  source: DataSource,
  fn: (manager: EntityManager) => Promise<T>,
): Promise<T> {
  const runner = source.createQueryRunner() as Runner;
  const behind: Promise<unknown>[] = [];
  try {
    const connection = (await runner.connect()) as PoolClient;
    // Sent behind: the transaction's first statement follows it in the same write.
    sendBehind(connection, behind, () => connection.query('START TRANSACTION'));
    runner.isTransactionActive = true;
    runner.transactionDepth = 1;
    writesBehind.set(runner, behind);
    let result: T;
    try {
      result = await fn(runner.manager);
    } catch (err) {
      // A failed ROLLBACK (a broken connection) must not hide why it failed,
      // nor a statement that failed only because one sent behind it had.
      await connection.query('ROLLBACK').catch(() => undefined);
      throw (await firstFailure(behind)) ?? err;
    } finally {
      writesBehind.delete(runner);
      runner.isTransactionActive = false;
      runner.transactionDepth = 0;
    }
    // COMMIT goes on the wire behind any write still unanswered. If one of
    // them failed, PostgreSQL had aborted the transaction and answers this
    // COMMIT with ROLLBACK: nothing of it was kept, and the write's error is
    // the reason.
    const [commit, failure] = await Promise.all([
      connection.query('COMMIT').then(
        (r) => ({ command: r.command, err: undefined }),
        (err: unknown) => ({ command: undefined, err }),
      ),
      firstFailure(behind),
    ]);
    if (failure) throw failure;
    if (commit.err) throw commit.err;
    if (commit.command !== 'COMMIT') throw new Error(`COMMIT was answered ${commit.command}`);
    return result;
  } finally {
    await runner.release();
  }
}

/**
 * Statements sent behind in each open lean transaction, by its runner: sent
 * without waiting for their answers, which the transaction collects before
 * it ends.
 */
const writesBehind = new WeakMap<object, Promise<unknown>[]>();

/** The first of `writes` to fail, once all have been answered (undefined if none did). */
async function firstFailure(writes: Promise<unknown>[]): Promise<unknown> {
  for (const settled of await Promise.allSettled(writes))
    if (settled.status === 'rejected') return settled.reason;
  return undefined;
}

/**
 * Sends a statement without waiting for its answer (the connection is in
 * pg's pipeline mode, so what follows goes on the wire behind it), keeping
 * the answer in `behind`. The socket stays corked until the statements
 * started in the same turn of the event loop are written, so they leave in
 * one write: on a VM a write that wakes the peer costs tens of microseconds
 * of CPU (bench/README.md, "Lean transactions").
 */
function sendBehind(
  connection: PoolClient,
  behind: Promise<unknown>[],
  send: () => Promise<unknown>,
): void {
  const stream = (connection as unknown as { connection: { stream: Writable } }).connection.stream;
  stream.cork();
  process.nextTick(() => stream.uncork());
  const sent = send();
  // Its failure is the transaction's, reported there; not an unhandled rejection meanwhile.
  sent.catch(() => undefined);
  behind.push(sent);
}

/**
 * Sends a write whose answer its caller does not need (no rows, no count)
 * and returns without waiting for it, inside a transaction run by
 * `leanTransaction`; the statements that follow go on the wire behind it,
 * and the COMMIT waits for its answer. If it fails, PostgreSQL aborts the
 * transaction (every later statement fails, COMMIT is answered ROLLBACK)
 * and the transaction throws the write's own error. A round trip saved per
 * such write, where it counts: an outbox row written between an invoice's
 * number and the commit that frees its counter (bench/README.md, "Lean transactions").
 *
 * Anywhere else (no transaction, or TypeORM's own for an isolation level) it
 * waits for the answer like any statement.
 */
export async function writeBehind(
  manager: EntityManager,
  text: string,
  params: unknown[],
): Promise<void> {
  const runner = manager.queryRunner as
    (PostgresQueryRunner & { databaseConnection?: PoolClient }) | undefined;
  const behind = runner && writesBehind.get(runner);
  if (!behind || !runner.databaseConnection) {
    await hotRows(manager, text, params);
    return;
  }
  // hotRows hands the statement to pg before its first await: on the wire ahead of what follows.
  sendBehind(runner.databaseConnection, behind, () => hotRows(manager, text, params));
}

/**
 * A nested transaction as TypeORM makes it (SAVEPOINT typeorm_<depth>, ROLLBACK
 * TO it on a throw), without RELEASE SAVEPOINT on success: COMMIT releases
 * every savepoint anyway, and the release was one more round trip inside
 * every idempotent request's transaction, where it can hold locks (an
 * invoice's number counter stays locked until the commit). A later savepoint
 * of the same name shadows an unreleased one, so ROLLBACK TO always reaches
 * the innermost, as PostgreSQL documents. In a lean transaction the
 * SAVEPOINT is sent behind (its first statement follows in the same write);
 * a rollback to it undoes what was sent behind inside it, failed or not.
 */
export async function leanSavepoint<T>(
  manager: EntityManager,
  fn: (manager: EntityManager) => Promise<T>,
): Promise<T> {
  const runner = manager.queryRunner as Runner | undefined;
  if (!runner?.isTransactionActive) return manager.transaction(fn);
  const connection = (await runner.connect()) as PoolClient;
  const savepoint = `typeorm_${runner.transactionDepth}`;
  const behind = writesBehind.get(runner);
  const mark = behind?.length ?? 0;
  if (behind) sendBehind(connection, behind, () => connection.query(`SAVEPOINT ${savepoint}`));
  else await connection.query(`SAVEPOINT ${savepoint}`);
  runner.transactionDepth += 1;
  try {
    return await fn(manager);
  } catch (err) {
    // If even this fails, the outer transaction is aborted and fails too.
    const inside = behind?.splice(mark) ?? [];
    const undone = await connection.query(`ROLLBACK TO SAVEPOINT ${savepoint}`).then(
      () => true,
      () => false,
    );
    const failure = await firstFailure(inside);
    if (!undone) behind?.push(...inside);
    // The statement that failed only because one sent behind it had is not the reason.
    throw failure ?? err;
  } finally {
    runner.transactionDepth -= 1;
  }
}
