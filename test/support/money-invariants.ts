/**
 * The money invariants, as SQL: each query answers the rows that break one
 * rule, so none at all means the books are right. The money-model test
 * (test/e2e/money-model.e2e-spec.ts) checks them after every step, the
 * ledger tests through `expectBalancedLedger` (ledger.ts), and the
 * topology drill (scripts/topology/checks.ts) after its faults, against
 * the database that took the load. No Jest here: the drill runs outside it.
 */

/** A pg Pool or Client. */
export interface Queryable {
  query(text: string, params?: unknown[]): Promise<{ rows: any[] }>;
}

/** The books balance, over every app: rows breaking each rule (all empty when they balance). */
export async function ledgerViolations(db: Queryable) {
  const rows = async (text: string) => (await db.query(text)).rows;
  return {
    // Every ledger transaction's debits equal its credits, over at least two entries.
    unbalancedTransactions: await rows(
      `SELECT transaction_id FROM ledger_entries GROUP BY transaction_id
        HAVING sum(debit_minor) <> sum(credit_minor) OR count(*) < 2`,
    ),
    // Per app and mode the accounts sum to zero.
    unbalancedPartitions: await rows(
      `SELECT app_id, mode, sum(debit_minor)::bigint AS d, sum(credit_minor)::bigint AS c
         FROM ledger_entries GROUP BY app_id, mode HAVING sum(debit_minor) <> sum(credit_minor)`,
    ),
    emptyTransactions: await rows(
      `SELECT t.id FROM ledger_transactions t
        WHERE NOT EXISTS (SELECT 1 FROM ledger_entries e WHERE e.transaction_id = t.id)`,
    ),
  };
}

/**
 * The money rules of one app (both modes): rows breaking each. `threshold`
 * is the app's refundApprovalThresholdMinor.
 */
export async function moneyViolations(db: Queryable, appId: number, threshold: number) {
  const q = async (text: string) => (await db.query(text, [appId])).rows;
  return {
    // An invoice counts exactly the non-excess part of its captures; nothing when VOID.
    invoiceCountsItsCaptures:
      await q(`SELECT i.id, i.status, i.total_minor, i.amount_paid_minor, COALESCE(s.counted, 0) AS counted
                 FROM invoices i LEFT JOIN (
                   SELECT invoice_id, sum(amount_minor - excess_minor) AS counted FROM payments
                    WHERE status = 'SUCCEEDED' GROUP BY invoice_id) s ON s.invoice_id = i.id
                WHERE i.app_id = $1 AND (i.amount_paid_minor <> COALESCE(s.counted, 0)
                   OR i.amount_paid_minor > i.total_minor OR (i.status = 'VOID' AND i.amount_paid_minor <> 0))`),
    // Every captured taka is counted on an invoice or refunded as excess (automatically).
    excessRefunded:
      await q(`SELECT p.id, p.excess_minor, COALESCE(a.auto, 0) AS auto FROM payments p
                 LEFT JOIN (SELECT payment_id, sum(amount_minor) AS auto FROM refunds
                             WHERE automatic AND status <> 'FAILED' GROUP BY payment_id) a ON a.payment_id = p.id
                WHERE p.app_id = $1 AND p.status = 'SUCCEEDED' AND p.excess_minor <> COALESCE(a.auto, 0)`),
    // Refunds never exceed their capture; the payment's refunded total is the succeeded ones.
    refundsWithinCapture:
      await q(`SELECT p.id, p.status, p.amount_minor, p.amount_refunded_minor, s.active, s.done FROM payments p
                 JOIN (SELECT payment_id,
                              sum(amount_minor) FILTER (WHERE status <> 'FAILED') AS active,
                              COALESCE(sum(amount_minor) FILTER (WHERE status = 'SUCCEEDED'), 0) AS done
                         FROM refunds GROUP BY payment_id) s ON s.payment_id = p.id
                WHERE p.app_id = $1 AND (p.status <> 'SUCCEEDED' OR s.active > p.amount_minor
                   OR p.amount_refunded_minor <> s.done)`),
    // Refunds that went without approval never add up past the threshold (cumulative rule).
    unapprovedWithinThreshold:
      await q(`SELECT payment_id, sum(amount_minor) AS unapproved FROM refunds
                WHERE app_id = $1 AND NOT automatic AND NOT approval_required AND status <> 'FAILED'
                GROUP BY payment_id HAVING sum(amount_minor) > ${Number(threshold)}`),
    // The ledger agrees with payments, refunds and settlements, in each mode.
    booksAgree: await q(`SELECT * FROM (SELECT m.mode,
        (SELECT COALESCE(sum(debit_minor - credit_minor), 0) FROM ledger_entries WHERE app_id = $1 AND mode = m.mode AND account = 'gateway_clearing') AS clearing,
        (SELECT COALESCE(sum(debit_minor - credit_minor), 0) FROM ledger_entries WHERE app_id = $1 AND mode = m.mode AND account = 'refunds_pending') AS pending,
        (SELECT COALESCE(sum(amount_minor), 0) FROM payments WHERE app_id = $1 AND mode = m.mode AND status = 'SUCCEEDED') AS captured,
        (SELECT COALESCE(sum(amount_minor), 0) FROM refunds WHERE app_id = $1 AND mode = m.mode AND status = 'SUCCEEDED') AS refunded,
        (SELECT COALESCE(sum(amount_minor), 0) FROM refunds WHERE app_id = $1 AND mode = m.mode AND status = 'PENDING') AS open,
        (SELECT COALESCE(sum(amount_minor), 0) FROM settlement_lines WHERE app_id = $1 AND mode = m.mode) AS settled
        FROM (VALUES ('TEST'::mode), ('LIVE'::mode)) m(mode)) b
        WHERE b.clearing <> b.captured - b.refunded - b.settled OR b.pending <> 0 - b.open`),
    // No capture is lost: a checkout the sandbox captured belongs to a payment
    // that is SUCCEEDED, still PENDING (asked at its deadline), or CANCELLED
    // and still watched (checkout_open_until ahead); never one closed for good.
    noCaptureLost: await q(`SELECT p.id, p.status, p.checkout_open_until FROM payments p
                 JOIN sandbox_sessions s ON s.session_id = p.gateway_session_id
                WHERE p.app_id = $1 AND s.status = 'CAPTURED' AND p.status <> 'SUCCEEDED'
                  AND NOT (p.status = 'PENDING')
                  AND NOT (p.status = 'CANCELLED' AND p.checkout_open_until IS NOT NULL)`),
    // Each fact's event fired exactly once.
    eventsOnce:
      await q(`SELECT type, COALESCE(data->>'refund_id', data->>'payment_id', data->>'invoice_id') AS subject, count(*)
                 FROM events WHERE app_id = $1 AND type IN ('payment.succeeded', 'payment.failed',
                   'payment.cancelled', 'refund.pending', 'refund.succeeded', 'refund.failed',
                   'invoice.paid', 'invoice.voided', 'invoice.issued')
                GROUP BY 1, 2 HAVING count(*) > 1`),
  };
}

export type MoneyViolations = Awaited<ReturnType<typeof moneyViolations>>;

/** What `moneyViolations` answers when every rule holds. */
export const NO_MONEY_VIOLATIONS: MoneyViolations = {
  invoiceCountsItsCaptures: [],
  excessRefunded: [],
  refundsWithinCapture: [],
  unapprovedWithinThreshold: [],
  booksAgree: [],
  noCaptureLost: [],
  eventsOnce: [],
};

/** The broken rules and how many rows break each ("booksAgree: 1"), empty when none. */
export function brokenRules(v: Record<string, unknown[]>): string[] {
  return Object.entries(v)
    .filter(([, rows]) => rows.length > 0)
    .map(([name, rows]) => `${name}: ${rows.length}`);
}
