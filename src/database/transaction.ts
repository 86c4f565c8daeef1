import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

/** The transaction host every service injects (`tx.getRepository(...)`, `tx.query(...)`). */
export type Tx = TransactionHost<TransactionalAdapterTypeOrm>;
export { TransactionHost, Transactional } from '@nestjs-cls/transactional';

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
