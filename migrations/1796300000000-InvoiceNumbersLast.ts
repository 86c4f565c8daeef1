import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Invoice numbers are taken last (issue #12): an invoice is inserted without
 * its number, its lines follow, and only then does the create take the next
 * number from its app and mode's counter row and write it, so the counter row
 * stays locked for the end of the transaction only, not the whole of it.
 * Numbers stay gapless (the counter moves in the creating transaction) and no
 * other transaction ever sees an invoice without one (it is set before the
 * commit); a deferred constraint trigger refuses a commit that would leave one
 * unnumbered.
 */
export class InvoiceNumbersLast1796300000000 implements MigrationInterface {
  name = 'InvoiceNumbersLast1796300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE invoices ALTER COLUMN number DROP NOT NULL`);
    await q.query(`
      CREATE FUNCTION invoices_numbered_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM invoices WHERE id = NEW.id AND number IS NULL) THEN
          RAISE EXCEPTION 'invoice % would be committed without a number', NEW.id
            USING ERRCODE = 'not_null_violation';
        END IF;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE CONSTRAINT TRIGGER invoices_numbered_at_commit
        AFTER INSERT OR UPDATE OF number ON invoices
        DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW EXECUTE FUNCTION invoices_numbered_at_commit()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER invoices_numbered_at_commit ON invoices`);
    await q.query(`DROP FUNCTION invoices_numbered_at_commit()`);
    await q.query(`ALTER TABLE invoices ALTER COLUMN number SET NOT NULL`);
  }
}
