import { setImmediate as yieldToLoop } from 'node:timers/promises';

import { parse } from 'csv-parse';

/** One good line of a settlement file. */
export interface SettlementCsvLine {
  /** 1-based physical line in the file (the header is line 1). */
  line: number;
  gatewayTxnId: string;
  amountMinor: number;
  feeMinor: number;
  currency: string;
  transactionTime: Date;
  settledOn: string | null;
}

export interface Rejection {
  line: number;
  reason: string;
}

const REQUIRED = ['gateway_txn_id', 'amount_minor', 'currency', 'transaction_time'] as const;
const OPTIONAL = ['fee_minor', 'settled_on'] as const;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})$/;
const MINOR = /^\d{1,15}$/;
/**
 * The largest amount one settlement line may carry (৳1,000,000,000.00,
 * decisions section 7): far above any real transaction, and low enough that
 * no sum the ledger or a reconciliation run computes over any number of
 * lines can leave the exact integer range of a double (2^53).
 */
export const MAX_LINE_MINOR = 100_000_000_000;

/**
 * Characters fed to the parser in one turn of the event loop: 64 KiB is
 * about 1,300 lines, parsed and checked in about 10 ms here (a 450,000-line
 * file is 370 turns).
 */
const PARSE_SLICE = 64 * 1024;

/**
 * Parses a settlement CSV (csv-parse: quoting, CRLF, BOM). A bad line is
 * rejected with its line number and reason; it never stops the good ones.
 * A header without the required columns rejects the whole file (line 1).
 * The text is fed to csv-parse's stream in slices, each line checked as the
 * parser emits it, with the event loop turning before every slice, so a
 * 32 MiB file never holds the process for long (other requests keep being
 * answered) and no second pass over all the parsed records is needed.
 */
export async function parseSettlementCsv(csv: string): Promise<{
  lines: number;
  good: SettlementCsvLine[];
  rejected: Rejection[];
  /**
   * Columns the header names more than once (case and spaces aside): which
   * of the values is meant cannot be told, so the whole file is refused.
   */
  repeatedColumns: string[];
}> {
  const rejected: Rejection[] = [];
  let repeatedColumns: string[] = [];
  const good: SettlementCsvLine[] = [];
  let header: string[] | null = null;
  let refusal: Rejection | null = null;
  let records = 0;
  const parser = parse({
    bom: true,
    trim: true,
    skip_empty_lines: true,
    relax_column_count: true,
    skip_records_with_error: true,
    info: true,
    on_skip: (err: { lines?: number; message: string } | undefined) => {
      if (err) rejected.push({ line: err.lines ?? 0, reason: `Unreadable CSV: ${err.message}` });
    },
  });
  parser.on('data', ({ record, info }: { record: string[]; info: { lines: number } }) => {
    records++;
    if (refusal) return;
    if (!header) {
      header = record.map((h) => h.toLowerCase());
      repeatedColumns = [...new Set(header.filter((c, i) => header!.indexOf(c) !== i))];
      refusal = repeatedColumns.length
        ? { line: info.lines, reason: `Columns named twice: ${repeatedColumns.join(', ')}` }
        : headerRefusal(header, info.lines);
      return;
    }
    const result = readLine(header, record, info.lines);
    if ('reason' in result) rejected.push(result);
    else good.push(result);
  });
  const ended = new Promise<void>((resolve, reject) => {
    parser.on('end', resolve);
    parser.on('error', reject);
  });
  for (let at = 0; at < csv.length; at += PARSE_SLICE) {
    await yieldToLoop();
    parser.write(csv.slice(at, at + PARSE_SLICE));
  }
  parser.end();
  await ended;
  if (refusal) return { lines: records, good: [], rejected: [refusal], repeatedColumns };
  if (!header)
    return {
      lines: 0,
      good: [],
      rejected: [{ line: 1, reason: 'The file is empty' }],
      repeatedColumns,
    };
  rejected.sort((a, b) => a.line - b.line);
  return { lines: good.length + rejected.length, good, rejected, repeatedColumns };
}

/** Why a header row cannot be read (a required column missing, an unknown one), or null. */
function headerRefusal(header: string[], line: number): Rejection | null {
  const missing = REQUIRED.filter((c) => !header.includes(c));
  const unknown = header.filter(
    (c) =>
      !(REQUIRED as readonly string[]).includes(c) && !(OPTIONAL as readonly string[]).includes(c),
  );
  if (!missing.length && !unknown.length) return null;
  return {
    line,
    reason: missing.length
      ? `The header lacks ${missing.join(', ')}`
      : `Unknown columns: ${unknown.join(', ')}`,
  };
}

function readLine(header: string[], record: string[], line: number): SettlementCsvLine | Rejection {
  if (record.length !== header.length)
    return { line, reason: `Expected ${header.length} fields, found ${record.length}` };
  const get = (c: string) => {
    const i = header.indexOf(c);
    return i < 0 ? '' : record[i];
  };
  const txn = get('gateway_txn_id');
  if (!txn || txn.length > 200) return { line, reason: 'gateway_txn_id must be 1-200 characters' };
  const amount = get('amount_minor');
  if (!MINOR.test(amount) || Number(amount) < 1 || Number(amount) > MAX_LINE_MINOR)
    return {
      line,
      reason: `amount_minor must be an integer of minor units from 1 to ${MAX_LINE_MINOR}`,
    };
  const feeRaw = get('fee_minor') || '0';
  if (!MINOR.test(feeRaw) || Number(feeRaw) > Number(amount))
    return { line, reason: 'fee_minor must be an integer from 0 to amount_minor' };
  const currency = get('currency').toUpperCase();
  if (currency !== 'BDT')
    return { line, reason: `currency must be BDT, not ${get('currency') || 'empty'}` };
  const time = get('transaction_time');
  const at = ISO.test(time) ? new Date(time) : null;
  if (!at || Number.isNaN(at.getTime()))
    return { line, reason: 'transaction_time must be an ISO-8601 date-time with a time zone' };
  const settledOn = get('settled_on') || null;
  if (
    settledOn !== null &&
    (!/^\d{4}-\d{2}-\d{2}$/.test(settledOn) ||
      new Date(`${settledOn}T00:00:00Z`).toISOString().slice(0, 10) !== settledOn)
  )
    return { line, reason: 'settled_on must be a date (YYYY-MM-DD)' };
  return {
    line,
    gatewayTxnId: txn,
    amountMinor: Number(amount),
    feeMinor: Number(feeRaw),
    currency,
    transactionTime: at,
    settledOn,
  };
}
