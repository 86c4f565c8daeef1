import type { PoolClient } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import type { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner';

/** The query runner's transaction state, which TypeORM keeps as protected fields. */
type Runner = PostgresQueryRunner & { transactionDepth: number };

/**
 * `dataSource.transaction(fn)` as TypeORM runs it (a query runner holding one
 * pooled connection, its EntityManager handed to `fn`), with START
 * TRANSACTION, COMMIT and ROLLBACK sent straight on that connection instead of
 * through the runner's `startTransaction` / `commitTransaction`, which wrap
 * each in four subscriber broadcasts, query logging hooks and a result object
 * (Joma registers no TypeORM subscribers). Profiled at ~25-40 us of a payment
 * request on a 2-core VM (bench/README.md, fifth pass).
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
  try {
    const connection = (await runner.connect()) as PoolClient;
    await connection.query('START TRANSACTION');
    runner.isTransactionActive = true;
    runner.transactionDepth = 1;
    let result: T;
    try {
      result = await fn(runner.manager);
    } catch (err) {
      // A failed ROLLBACK (a broken connection) must not hide why it failed.
      await connection.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      runner.isTransactionActive = false;
      runner.transactionDepth = 0;
    }
    await connection.query('COMMIT');
    return result;
  } finally {
    await runner.release();
  }
}

/**
 * A nested transaction as TypeORM makes it (SAVEPOINT typeorm_<depth>, ROLLBACK
 * TO it on a throw), without RELEASE SAVEPOINT on success: COMMIT releases
 * every savepoint anyway, and the release was one more round trip inside
 * every idempotent request's transaction, where it can hold locks (an
 * invoice's number counter stays locked until the commit). A later savepoint
 * of the same name shadows an unreleased one, so ROLLBACK TO always reaches
 * the innermost, as PostgreSQL documents.
 */
export async function leanSavepoint<T>(
  manager: EntityManager,
  fn: (manager: EntityManager) => Promise<T>,
): Promise<T> {
  const runner = manager.queryRunner as Runner | undefined;
  if (!runner?.isTransactionActive) return manager.transaction(fn);
  const connection = (await runner.connect()) as PoolClient;
  const savepoint = `typeorm_${runner.transactionDepth}`;
  await connection.query(`SAVEPOINT ${savepoint}`);
  runner.transactionDepth += 1;
  try {
    return await fn(manager);
  } catch (err) {
    // If even this fails, the outer transaction is aborted and fails too.
    await connection.query(`ROLLBACK TO SAVEPOINT ${savepoint}`).catch(() => undefined);
    throw err;
  } finally {
    runner.transactionDepth -= 1;
  }
}
