import { useEffect, useState } from 'preact/hooks';

import { call } from './api';
import { useCtx } from './context';

/** Numbers already fetched, per app and mode: `1-TEST-42` -> `INV-000042`. */
const known = new Map<string, string>();

/**
 * The numbers (`INV-000003`) of the invoices a list refers to by id, so a
 * link reads as people know the invoice: fetched once each through
 * GET /invoices/{id} (records that name an invoice carry its id only).
 * Until it is known, a link reads `#id`.
 */
export function useInvoiceNumbers(ids: (number | null | undefined)[]): (id: number) => string {
  const { app, appId, mode } = useCtx();
  const [, setVersion] = useState(0);
  const key = (id: number) => `${appId}-${mode}-${id}`;
  const wanted = [...new Set(ids.filter((id): id is number => !!id))].filter(
    (id) => !known.has(key(id)),
  );
  useEffect(() => {
    if (wanted.length === 0) return;
    let live = true;
    void Promise.all(
      wanted.map((id) =>
        call<{ number: string }>(app.GET('/api/v1/invoices/{id}', { params: { path: { id } } }))
          .then((r) => known.set(key(id), r.data.number))
          .catch(() => undefined),
      ),
    ).then(() => {
      if (live) setVersion((v) => v + 1);
    });
    return () => {
      live = false;
    };
  }, [wanted.join(','), app]);
  return (id) => known.get(key(id)) ?? `#${id}`;
}
