import {
  brokenRules,
  ledgerViolations,
  moneyViolations,
  type Queryable,
} from '../../test/support/money-invariants';
import type { Ack } from './load';

/** Where each acknowledged write's record lives, and the column holding its Idempotency-Key. */
const RECORDS = {
  invoice: {
    table: 'invoices',
    keyed: 'invoice_line_items',
    keyColumn: 'description',
    idColumn: 'invoice_id',
  },
  payment: { table: 'payments', keyed: 'payments', keyColumn: 'description', idColumn: 'id' },
  refund: { table: 'refunds', keyed: 'refunds', keyColumn: 'reason', idColumn: 'id' },
} as const;

/** The event each acknowledged fact must have recorded, by the id it carries. */
const EVENTS: Record<Ack['kind'], { types: string[]; idField: string }> = {
  invoice: { types: ['invoice.issued'], idField: 'invoice_id' },
  payment: { types: [], idField: 'payment_id' },
  settle: { types: ['payment.succeeded'], idField: 'payment_id' },
  refund: { types: ['refund.pending', 'refund.succeeded'], idField: 'refund_id' },
};

export interface Findings {
  /** Acknowledged writes whose record, settled status or event is not in the database. */
  lost: number;
  /** Records beyond one per Idempotency-Key. */
  duplicated: number;
  /** Money rules broken ("booksAgree: 1"). */
  broken: string[];
}

/**
 * Every acknowledged write against the database (its record present, once
 * per key; a settled payment SUCCEEDED; its event recorded) and the money
 * invariants the money-model test checks (test/support/money-invariants.ts).
 * A write counts once as lost, whatever of it is missing.
 */
export async function checkAcknowledged(
  db: Queryable,
  appId: number,
  acks: Ack[],
  threshold: number,
): Promise<Findings> {
  const lost = new Set<string>();
  const missing = (kind: Ack['kind'], found: { id: number | string }[]) => {
    const present = new Set(found.map((r) => Number(r.id)));
    for (const a of acks) if (a.kind === kind && !present.has(a.id)) lost.add(`${kind}:${a.id}`);
  };
  const idsOf = (kind: Ack['kind']) => acks.filter((a) => a.kind === kind).map((a) => a.id);
  let duplicated = 0;
  for (const kind of ['invoice', 'payment', 'refund'] as const) {
    const r = RECORDS[kind];
    const found = await db.query(
      `SELECT id FROM ${r.table} WHERE app_id = $1 AND id = ANY($2::bigint[])`,
      [appId, idsOf(kind)],
    );
    missing(kind, found.rows);
    // Every drill record carries its key; one key, one record, acknowledged or not.
    const dup = await db.query(
      `SELECT COALESCE(sum(n - 1), 0)::int AS extra FROM (
         SELECT count(DISTINCT k.${r.idColumn}) AS n FROM ${r.keyed} k
          WHERE k.${r.keyColumn} LIKE 'drill-%' GROUP BY k.${r.keyColumn}) per_key`,
    );
    duplicated += dup.rows[0].extra;
  }
  const succeeded = await db.query(
    `SELECT id FROM payments WHERE app_id = $1 AND id = ANY($2::bigint[]) AND status = 'SUCCEEDED'`,
    [appId, idsOf('settle')],
  );
  missing('settle', succeeded.rows);
  for (const kind of ['invoice', 'settle', 'refund'] as const) {
    const e = EVENTS[kind];
    const withEvent = await db.query(
      `SELECT DISTINCT (data->>'${e.idField}')::bigint AS id FROM events
        WHERE app_id = $1 AND type = ANY($2::text[]) AND (data->>'${e.idField}')::bigint = ANY($3::bigint[])`,
      [appId, e.types, idsOf(kind)],
    );
    missing(kind, withEvent.rows);
  }
  const broken = [
    ...brokenRules(await moneyViolations(db, appId, threshold)),
    ...brokenRules(await ledgerViolations(db)),
  ];
  return { lost: lost.size, duplicated, broken };
}

/**
 * Events of the app (TEST) since the endpoint was created whose delivery to
 * it the receiver has not got (no delivery row counts as missing too).
 */
export async function missingDeliveries(
  db: Queryable,
  appId: number,
  endpointId: number,
  received: ReadonlySet<number>,
): Promise<{ missing: number; expected: number }> {
  const rows = (
    await db.query(
      `SELECT e.id AS event_id, d.id AS delivery_id FROM events e
         LEFT JOIN webhook_deliveries d ON d.event_id = e.id AND d.endpoint_id = $2
        WHERE e.app_id = $1 AND e.mode = 'TEST'
          AND e.created_at >= (SELECT created_at FROM webhook_endpoints WHERE id = $2)`,
      [appId, endpointId],
    )
  ).rows as { event_id: number; delivery_id: number | null }[];
  const missing = rows.filter(
    (r) => r.delivery_id === null || !received.has(Number(r.delivery_id)),
  ).length;
  return { missing, expected: rows.length };
}
