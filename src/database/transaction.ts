import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

/**
 * The transaction host over TypeORM, as `TenantRepo` names it (repositories
 * and the few other data-access classes spell the type out; use cases open
 * transactions with `@Transactional()` rather than inject it): `txHost.tx`
 * is the current transaction's `EntityManager`, for
 * `txHost.tx.getRepository(...)` and `sql(txHost.tx)` (raw SQL goes through
 * `sql()`, never `tx.query(...)`).
 */
export type Tx = TransactionHost<TransactionalAdapterTypeOrm>;
export { Transactional, TransactionHost } from '@nestjs-cls/transactional';

/** The SQLSTATE of a PostgreSQL error, as pg raises it or as TypeORM wraps it (`driverError`). */
export function sqlStateOf(err: unknown): string | undefined {
  const e = err as { code?: string; driverError?: { code?: string } } | null;
  return e?.code ?? e?.driverError?.code;
}

/** PostgreSQL unique_violation. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { constraint?: string; driverError?: { constraint?: string } } | null;
  const name = e?.constraint ?? e?.driverError?.constraint;
  return sqlStateOf(err) === '23505' && (constraint === undefined || name === constraint);
}

/** PostgreSQL foreign_key_violation (e.g. an admin naming an app that does not exist). */
export function isForeignKeyViolation(err: unknown): boolean {
  return sqlStateOf(err) === '23503';
}

/**
 * A deadlock (40P01) or serialization failure (40001): PostgreSQL rolled the
 * whole transaction back, and running it again is safe.
 */
export function isRetryableConflict(err: unknown): boolean {
  const state = sqlStateOf(err);
  return state === '40P01' || state === '40001';
}

/**
 * Runs `transaction` (which opens and commits its own transaction, with no
 * network call inside) and runs it once more if PostgreSQL chose it as a
 * deadlock's or serialization conflict's victim. A second conflict is
 * answered 503 by the exception filter, never 500.
 *
 * Lock order (docs/architecture.md, "The money core"): payments, then
 * their invoice, then its subscription; changes that start from a
 * subscription lock its open invoice's payments and the invoice first.
 * A serialization failure, or a deadlock the order cannot rule out (a
 * renewal invoice opened between a change's look and its lock), rolls one
 * transaction back; it runs once more here.
 */
export async function retryOnConflict<T>(transaction: () => Promise<T>): Promise<T> {
  try {
    return await transaction();
  } catch (err) {
    if (!isRetryableConflict(err)) throw err;
    return transaction();
  }
}
