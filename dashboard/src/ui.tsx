import type {
  ComponentChildren,
  PartialInputHTMLAttributes,
  PartialSelectHTMLAttributes,
} from 'preact';
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';

import { ApiError, type Pagination } from './api';
import { useCtx } from './context';
import { num } from './format';
import { valueLabel } from './values';

/** An error as the API stated it, announced to screen readers. */
export function ErrorNote({ error }: { error: unknown }) {
  if (!error) return null;
  const e = error as ApiError;
  return (
    <p class="error" role="alert">
      {e.message}
      {e.details?.length ? ` (${e.details.map((d) => `${d.field}: ${d.message}`).join('; ')})` : ''}
    </p>
  );
}

export function Ok({ text }: { text: string | null }) {
  return text ? (
    <p class="ok" role="status">
      {text}
    </p>
  ) : null;
}

export interface Column<R> {
  label: string;
  cell: (row: R) => ComponentChildren;
  num?: boolean;
}

/** A list as a table (the acceptance checks find lists by their `table` role). */
export function Table<R>({
  caption,
  columns,
  rows,
  loading = false,
}: {
  caption: string;
  columns: Column<R>[];
  rows: R[];
  loading?: boolean;
}) {
  const { t } = useCtx();
  return (
    // Wide tables scroll inside their own focusable group, never the page (a
    // group, not a region: the screen's landmarks keep unique names). Below
    // 40rem each row is a card of label-value lines, so nothing scrolls
    // sideways and row actions stay in reach (styles.css).
    <div class="table-wrap" role="group" aria-label={caption} tabIndex={0}>
      <table aria-busy={loading ? 'true' : undefined}>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" class={c.num ? 'num' : undefined}>
                {c.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={columns.length}>{loading ? t('Loading') : t('No rows')}</td>
            </tr>
          ) : (
            rows.map((r) => (
              <tr>
                {columns.map((c) => (
                  <td class={c.num ? 'num' : undefined} data-label={c.label}>
                    {c.cell(r)}
                  </td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}

type Fetch<R> = (cursor: string | undefined) => Promise<{ data: R[]; pagination: Pagination }>;

/**
 * A list paged with the API's cursors (pagination.nextCursor), back and forth.
 * Only the latest request's answer is shown: a filter changed twice in quick
 * succession (Search, then To) must not be overwritten by the first answer
 * arriving last.
 */
export function useList<R>(fetcher: Fetch<R>, deps: unknown[]) {
  const [rows, setRows] = useState<R[]>([]);
  const [pagination, setPagination] = useState<Pagination | null>(null);
  const [trail, setTrail] = useState<(string | undefined)[]>([undefined]);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const latest = useRef(0);
  const load = useCallback(async (cursor: string | undefined) => {
    const mine = ++latest.current;
    setLoading(true);
    setError(null);
    try {
      const res = await fetcher(cursor);
      if (mine !== latest.current) return;
      setRows(res.data);
      setPagination(res.pagination);
    } catch (e) {
      if (mine !== latest.current) return;
      setError(e);
      setRows([]);
    } finally {
      if (mine === latest.current) setLoading(false);
    }
  }, deps);
  useEffect(() => {
    setTrail([undefined]);
    void load(undefined);
  }, [load]);
  const current = trail[trail.length - 1];
  return {
    rows,
    pagination,
    error,
    loading,
    reload: () => load(current),
    hasNext: !!pagination?.nextCursor,
    hasPrev: trail.length > 1,
    next: () => {
      const c = pagination?.nextCursor ?? undefined;
      if (!c) return;
      setTrail([...trail, c]);
      void load(c);
    },
    prev: () => {
      const t = trail.slice(0, -1);
      setTrail(t);
      void load(t[t.length - 1]);
    },
  };
}

/** What `useList` answers for rows of type R. */
export type List<R> = ReturnType<typeof useList<R>>;

/** Previous and next for a `useList` list, with its total. */
export function Pager<R>({ list }: { list: List<R> }) {
  const { t, lang } = useCtx();
  if (!list.hasNext && !list.hasPrev) return null;
  return (
    <div class="pager" role="group" aria-label={t('Pages')}>
      <button type="button" disabled={!list.hasPrev} onClick={list.prev}>
        {t('Previous')}
      </button>
      {list.pagination ? (
        <span>
          {num(list.pagination.totalElements, lang)} {t('Total').toLowerCase()}
        </span>
      ) : null}
      <button type="button" disabled={!list.hasNext} onClick={list.next}>
        {t('Next')}
      </button>
    </div>
  );
}

/** A labelled input. */
export function Field({
  label,
  hint,
  ...input
}: { label: string; hint?: string } & PartialInputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} aria-describedby={hint ? `${id}-hint` : undefined} {...(input as object)} />
      {hint ? (
        <small id={`${id}-hint`} class="hint">
          {hint}
        </small>
      ) : null}
    </div>
  );
}

/** A labelled select of (value, text) options. */
export function Select({
  label,
  options,
  ...select
}: {
  label: string;
  options: [string, string][];
} & PartialSelectHTMLAttributes<HTMLSelectElement>) {
  const id = useId();
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} {...(select as object)}>
        {options.map(([v, text]) => (
          <option value={v}>{text}</option>
        ))}
      </select>
    </div>
  );
}

/** A secret shown once (an endpoint's signing secret, an app's API secret). */
export function OneTimeSecret({ label, value }: { label: string; value: string }) {
  const { t } = useCtx();
  const id = useId();
  return (
    <div class="secret" role="status">
      <p>
        <strong>{t('Shown once: copy it now. It cannot be shown again.')}</strong>
      </p>
      <label for={id}>{label}</label>
      <input id={id} readOnly value={value} class="mono" />
      <CopyButton text={value} label={`${t('Copy')} ${label}`} />
    </div>
  );
}

export function CopyButton({ text, label }: { text: string; label: string }) {
  const { t } = useCtx();
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      onClick={() => {
        void navigator.clipboard?.writeText(text).then(() => setDone(true));
      }}
    >
      {done ? t('Copied') : label}
    </button>
  );
}

/** A screen's heading and body; a screen the user may not read says so instead. */
export function Screen({
  title,
  allowed = true,
  children,
}: {
  title: string;
  allowed?: boolean;
  children?: ComponentChildren;
}) {
  const { t } = useCtx();
  return (
    // Not a landmark of its own: `main` is the screen's (landmark names stay unique).
    <div class="screen">
      <h1 id="screen-title" tabIndex={-1}>
        {title}
      </h1>
      {allowed ? children : <p>{t('You do not have the permission for this screen.')}</p>}
    </div>
  );
}

/** An action button that runs an async call and shows its error. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const run = async (fn: () => Promise<unknown>, okText?: string) => {
    setBusy(true);
    setError(null);
    setDone(null);
    try {
      await fn();
      if (okText) setDone(okText);
      return true;
    } catch (e) {
      setError(e);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, done, run };
}

/** A status (or kind, or mode) as a badge, in the language (`SUCCEEDED`, in Bangla সফল). */
export function Status({ value }: { value: string }) {
  const { lang } = useCtx();
  return <span class={`badge badge-${value.toLowerCase()}`}>{valueLabel(value, lang)}</span>;
}
