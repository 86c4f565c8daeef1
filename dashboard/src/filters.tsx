import type { ComponentChildren } from 'preact';
import { useEffect, useId, useState } from 'preact/hooks';

import type { JomaClient } from '../../clients/typescript/src/client';
import { ApiError } from './api';
import { useCtx } from './context';
import { dhakaToday } from './format';
import { ErrorNote, useAction } from './ui';

/** What the Invoices, Payments and Refunds lists filter by (decisions section 20), besides their own. */
export interface Range {
  /** Search: invoice number, customer reference, email or phone, payment id, gateway transaction id. */
  q: string;
  /** Asia/Dhaka days, YYYY-MM-DD, both inclusive ('' = open). */
  from: string;
  to: string;
}

export const NO_RANGE: Range = { q: '', from: '', to: '' };

/** The query parameters of a range: empty fields left out. */
export function rangeQuery(r: Range): { q?: string; from?: string; to?: string } {
  return {
    q: r.q.trim() || undefined,
    from: r.from || undefined,
    to: r.to || undefined,
  };
}

/**
 * The filter bar of a list: `Search`, `From`, `To` (date inputs), the list's
 * own filters (children) and `Export CSV`. A filter applies when its field
 * changes or on Enter; the list reloads from its first page.
 */
export function ListFilters({
  value,
  onApply,
  exportCsv,
  children,
}: {
  value: Range;
  onApply: (r: Range) => void;
  /** Downloads every row the applied filters select (through the list route, `Accept: text/csv`). */
  exportCsv?: () => Promise<void>;
  children?: ComponentChildren;
}) {
  const { t } = useCtx();
  const id = useId();
  const [q, setQ] = useState(value.q);
  useEffect(() => setQ(value.q), [value.q]);
  const action = useAction();
  const enter = (apply: (v: string) => void) => (e: KeyboardEvent) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      apply((e.currentTarget as HTMLInputElement).value);
    }
  };
  const applyQ = (v: string) => {
    if (v !== value.q) onApply({ ...value, q: v });
  };
  const applyDate = (edge: 'from' | 'to') => (v: string) => {
    if (v !== value[edge]) onApply({ ...value, [edge]: v });
  };
  return (
    <div class="list-tools">
      <form
        class="filters"
        role="search"
        aria-label={t('Filters')}
        onSubmit={(e) => {
          e.preventDefault();
          applyQ(q);
        }}
      >
        <div class="field field-search">
          <label for={`${id}-q`}>{t('Search')}</label>
          <input
            id={`${id}-q`}
            type="search"
            value={q}
            onInput={(e) => setQ(e.currentTarget.value)}
            onChange={(e) => applyQ(e.currentTarget.value)}
            onKeyDown={enter(applyQ)}
          />
        </div>
        <div class="field field-date">
          <label for={`${id}-from`}>{t('From')}</label>
          <input
            id={`${id}-from`}
            type="date"
            max={value.to || dhakaToday()}
            value={value.from}
            onChange={(e) => applyDate('from')(e.currentTarget.value)}
            onKeyDown={enter(applyDate('from'))}
          />
        </div>
        <div class="field field-date">
          <label for={`${id}-to`}>{t('To')}</label>
          <input
            id={`${id}-to`}
            type="date"
            min={value.from || undefined}
            value={value.to}
            onChange={(e) => applyDate('to')(e.currentTarget.value)}
            onKeyDown={enter(applyDate('to'))}
          />
        </div>
        {children}
      </form>
      {exportCsv ? (
        <p class="export">
          <button type="button" disabled={action.busy} onClick={() => action.run(exportCsv)}>
            {t('Export CSV')}
          </button>
        </p>
      ) : null}
      <ErrorNote error={action.error} />
    </div>
  );
}

type Answer = { data?: unknown; error?: unknown; response: Response };

/**
 * Saves the CSV a list route answers to `Accept: text/csv` as a download
 * named by the server's Content-Disposition, else `fallback`. The call is
 * the typed client's GET of that route with the list's own filters; only
 * the Accept header and reading the body as a Blob are added (the client
 * types no CSV answer).
 */
export async function downloadCsv(
  client: JomaClient,
  path: '/api/v1/invoices' | '/api/v1/payments' | '/api/v1/refunds' | '/api/v1/admin/payments',
  query: Record<string, unknown>,
  fallback: string,
): Promise<void> {
  const get = client.GET as unknown as (path: string, init: object) => Promise<Answer>;
  const { data, error, response } = await get(path, {
    params: { query },
    headers: { Accept: 'text/csv' },
    parseAs: 'blob',
  });
  if (error !== undefined || !response.ok || !(data instanceof Blob)) {
    const env = error as { meta?: { message?: string; errorCode?: string } } | undefined;
    throw new ApiError(
      env?.meta?.message ?? `HTTP ${response.status}`,
      response.status,
      env?.meta?.errorCode ?? 'HTTP_ERROR',
    );
  }
  const named = /filename="?([^";]+)"?/.exec(response.headers.get('content-disposition') ?? '');
  const url = URL.createObjectURL(data);
  const a = document.createElement('a');
  a.href = url;
  a.download = named?.[1] ?? fallback;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** `invoices-2026-12-01-2026-12-31.csv`: the list and its date range. */
export function csvName(list: string, r: Range): string {
  return `${[list, r.from, r.to].filter(Boolean).join('-')}.csv`;
}
