import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Finding records (decisions section 20): the lists' `q` compares indexed
 * columns only, and the customers list pages in its own order.
 *
 * - customers: the list newest first per app and mode; its search by the
 *   start of the reference, name or email (case-insensitive, so on
 *   `lower(...)` with `text_pattern_ops`, which serves `LIKE 'abc%'` and
 *   equality alike) and by phone. The search key leads and app and mode
 *   follow, so an operator's search across apps uses them too;
 * - payments: by gateway transaction id, in any app (a customer's bKash
 *   TrxID or SSLCommerz bank_tran_id read out to support);
 * - invoices: by number in any app (an operator's search across apps; one
 *   app and mode use their unique (app_id, mode, number));
 * - refunds: by customer and by invoice (the payment one is there already).
 */
const INDEXES: [string, string][] = [
  ['customers_by_created', 'customers (app_id, mode, created_at DESC, id DESC)'],
  ['customers_search_reference', 'customers (lower(external_id) text_pattern_ops, app_id, mode)'],
  ['customers_search_name', 'customers (lower(name) text_pattern_ops, app_id, mode)'],
  ['customers_search_email', 'customers (lower(email) text_pattern_ops, app_id, mode)'],
  ['customers_search_phone', 'customers (phone, app_id, mode)'],
  [
    'payments_by_txn_id',
    'payments (gateway_txn_id, app_id, mode) WHERE gateway_txn_id IS NOT NULL',
  ],
  ['invoices_by_number', 'invoices (number)'],
  ['refunds_by_customer', 'refunds (customer_id, id)'],
  ['refunds_by_invoice', 'refunds (invoice_id, id) WHERE invoice_id IS NOT NULL'],
];

export class ListSearch1797000009400 implements MigrationInterface {
  name = 'ListSearch1797000009400';

  async up(q: QueryRunner): Promise<void> {
    for (const [name, on] of INDEXES) await q.query(`CREATE INDEX ${name} ON ${on}`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const [name] of INDEXES) await q.query(`DROP INDEX ${name}`);
  }
}
