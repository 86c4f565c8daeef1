import { Readable } from 'node:stream';

import { createParamDecorator, ExecutionContext, Logger, StreamableFile } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';

import { AppError } from '../errors/app-error';

/**
 * CSV exports of the invoice, payment and refund lists (decisions section
 * 20): asked for with `Accept: text/csv`, streamed in batches, UTF-8 with a
 * byte order mark, one header row, CRLF line ends (RFC 4180). Amounts come
 * as two columns, taka with two decimals and minor units, both formatted
 * from the integer (never through a float); dates and times in Asia/Dhaka.
 */

/** The most rows one export holds; a larger selection is refused before anything is sent. */
export const CSV_EXPORT_LIMIT = 100_000;
/** Rows read from the database per statement while streaming. */
export const CSV_BATCH_SIZE = 1000;

export const CSV_CONTENT_TYPE = 'text/csv; charset=utf-8';
const BOM = '\uFEFF';
const logger = new Logger('CsvExport');

/**
 * Whether the request asks for CSV: `text/csv` among the media ranges of
 * `Accept` with a weight above 0, and JSON not preferred over it.
 */
export function wantsCsv(accept: string | undefined): boolean {
  if (!accept) return false;
  let csv = 0;
  let json = 0;
  for (const part of accept.split(',')) {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const weight = qParam ? Number(qParam.slice(2)) : 1;
    const w = Number.isFinite(weight) ? weight : 0;
    if (type.trim() === 'text/csv') csv = Math.max(csv, w);
    if (type.trim() === 'application/json') json = Math.max(json, w);
  }
  return csv > 0 && csv >= json;
}

/** Characters a spreadsheet reads as the start of a formula (OWASP "CSV injection"). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One field: a leading apostrophe when it starts like a formula (=, +, -, @,
 * tab or carriage return), then quoted (quotes doubled) when it holds a
 * quote, comma, or line break. null and undefined are empty fields.
 */
export function csvField(value: string | number | bigint | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  let s = String(value);
  if (FORMULA_START.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function csvLine(values: (string | number | bigint | boolean | null | undefined)[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}

/** Minor units as taka with two decimals (`123450` -> `1234.50`), in integer arithmetic. */
export function takaOf(minor: number | bigint | string): string {
  const m = BigInt(minor);
  const negative = m < 0n;
  const abs = negative ? -m : m;
  return `${negative ? '-' : ''}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`;
}

const DHAKA_OFFSET_MS = 6 * 3600_000;

/** An instant as Asia/Dhaka local time, `2026-12-02T15:04:05+06:00` (whole seconds). */
export function dhakaDateTime(at: Date | null | undefined): string {
  if (!at) return '';
  return `${new Date(at.getTime() + DHAKA_OFFSET_MS).toISOString().slice(0, 19)}+06:00`;
}

/** A column of an export: its header and how a record fills it. */
export interface CsvColumn<R> {
  header: string;
  value: (row: R) => string | number | bigint | boolean | null | undefined;
  /** What the column holds (the docs and the OpenAPI document list it). */
  doc: string;
}

/** A money column pair: `<name>Taka` (two decimals) and `<name>Minor`. */
export function moneyColumns<R>(
  name: string,
  minor: (row: R) => number,
  doc: string,
): CsvColumn<R>[] {
  return [
    {
      header: `${name}Taka`,
      value: (r) => takaOf(minor(r)),
      doc: `${doc}, in taka with two decimals`,
    },
    { header: `${name}Minor`, value: (r) => minor(r), doc: `${doc}, in minor units (poisha)` },
  ];
}

/** The columns as the OpenAPI document and docs describe them. */
export function describeColumns<R>(columns: CsvColumn<R>[]): string {
  return columns.map((c) => `\`${c.header}\`: ${c.doc}`).join('; ');
}

/**
 * A list's export, once its size is known: 400 VALIDATION_FAILED beyond
 * CSV_EXPORT_LIMIT (nothing is streamed), else the file, streamed batch by
 * batch as the client reads it. A failure after the first bytes went out
 * cuts the connection (the client sees an incomplete download, never a
 * short file that looks whole).
 */
export function csvExport<R>(opts: {
  filename: string;
  columns: CsvColumn<R>[];
  count: number;
  batches: AsyncIterable<R[]>;
}): StreamableFile {
  if (opts.count > CSV_EXPORT_LIMIT)
    throw AppError.validation(
      'Accept',
      `The export would hold more than ${CSV_EXPORT_LIMIT} rows; at most ${CSV_EXPORT_LIMIT} rows can be exported at once: narrow the filters (from, to, status, q)`,
    );
  const { columns, batches } = opts;
  async function* lines(): AsyncGenerator<Buffer> {
    yield Buffer.from(BOM + csvLine(columns.map((c) => c.header)), 'utf8');
    let sent = 0;
    for await (const batch of batches) {
      const rows = batch.slice(0, CSV_EXPORT_LIMIT - sent);
      sent += rows.length;
      if (rows.length > 0)
        yield Buffer.from(
          rows.map((r) => csvLine(columns.map((c) => c.value(r)))).join(''),
          'utf8',
        );
      if (sent >= CSV_EXPORT_LIMIT) return;
    }
  }
  const file = new StreamableFile(Readable.from(lines(), { objectMode: false }), {
    type: CSV_CONTENT_TYPE,
    disposition: `attachment; filename="${opts.filename}"`,
  });
  file.setErrorHandler((err, res) => {
    if (res.destroyed) return;
    logger.error(`CSV export ${opts.filename} stopped: ${err.message}`);
    if (res.destroy) res.destroy();
    else res.end();
  });
  return file;
}

/** Whether the request asks for CSV (`Accept: text/csv`), as a handler parameter. */
export const WantsCsv = createParamDecorator((_: unknown, ctx: ExecutionContext): boolean => {
  const headers = ctx.switchToHttp().getRequest<{ headers: Record<string, unknown> }>().headers;
  const accept = headers.accept;
  return wantsCsv(typeof accept === 'string' ? accept : undefined);
});

/**
 * Documents a list's CSV export: the 200 response gains `text/csv` content
 * (added when the document is finished, bootstrap/openapi-document.ts) and
 * the operation says what the columns hold.
 */
export function ApiCsvExport<R>(columns: CsvColumn<R>[]): MethodDecorator {
  return ApiExtension('x-csv-export', {
    header: columns.map((c) => c.header).join(','),
    columns: describeColumns(columns),
  }) as MethodDecorator;
}
