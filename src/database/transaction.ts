import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

/** The transaction host every service injects (`tx.getRepository(...)`, `tx.query(...)`). */
export type Tx = TransactionHost<TransactionalAdapterTypeOrm>;
export { TransactionHost, Transactional } from '@nestjs-cls/transactional';

/** PostgreSQL unique_violation. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as {
    code?: string;
    constraint?: string;
    driverError?: { code?: string; constraint?: string };
  };
  const code = e?.code ?? e?.driverError?.code;
  const name = e?.constraint ?? e?.driverError?.constraint;
  return code === '23505' && (constraint === undefined || name === constraint);
}

/** PostgreSQL foreign_key_violation (e.g. an admin naming an app that does not exist). */
export function isForeignKeyViolation(err: unknown): boolean {
  const e = err as { code?: string; driverError?: { code?: string } };
  return (e?.code ?? e?.driverError?.code) === '23503';
}
