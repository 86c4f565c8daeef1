import { useState } from 'preact/hooks';

import type { components } from '../../../clients/typescript/src/generated/schema';
import { call } from '../api';
import { useCtx } from '../context';
import { dateTime } from '../format';
import { useInvoiceNumbers } from '../invoice-numbers';
import { ErrorNote, Pager, Screen, Select, Status, Table, useList } from '../ui';
import { valueLabel } from '../values';

type Notification = components['schemas']['NotificationDto'];
const KINDS = ['RECEIPT', 'DUNNING_REMINDER', 'INVOICE', 'TRIAL_ENDING'] as const;
const STATUSES = ['QUEUED', 'SENT', 'FAILED', 'SKIPPED', 'CAPTURED'] as const;

/** What the payers of this app and mode were told (decisions section 16): receipts, invoices, reminders. */
export function NotificationsScreen() {
  const { t, lang, app, can } = useCtx();
  const [f, setF] = useState({ kind: '', status: '' });
  const [query, setQuery] = useState(f);
  const [open, setOpen] = useState<number | null>(null);
  const list = useList<Notification>(
    (cursor) =>
      call<Notification[]>(
        app.GET('/api/v1/notifications', {
          params: {
            query: {
              size: 20,
              cursor,
              kind: (query.kind || undefined) as never,
              status: (query.status || undefined) as never,
            },
          },
        }),
      ),
    [query, app],
  );
  const shown = list.rows.find((n) => n.id === open);
  const number = useInvoiceNumbers(list.rows.map((n) => n.invoiceId));
  return (
    <Screen title={t('Notifications')} allowed={can('invoices:read')}>
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery(f);
        }}
      >
        <Select
          label={t('Kind')}
          value={f.kind}
          onChange={(e) => setF({ ...f, kind: e.currentTarget.value })}
          options={[
            ['', t('Any')],
            ...KINDS.map((k) => [k, valueLabel(k, lang)] as [string, string]),
          ]}
        />
        <Select
          label={t('Status')}
          value={f.status}
          onChange={(e) => setF({ ...f, status: e.currentTarget.value })}
          options={[
            ['', t('Any')],
            ...STATUSES.map((s) => [s, valueLabel(s, lang)] as [string, string]),
          ]}
        />
        <button type="submit">{t('Search')}</button>
      </form>
      <ErrorNote error={list.error} />
      <Table
        caption={t('Notifications')}
        rows={list.rows}
        loading={list.loading}
        columns={[
          { label: t('When'), cell: (n) => dateTime(n.createdAt, lang) },
          { label: t('Kind'), cell: (n) => valueLabel(n.kind, lang) },
          { label: t('Channel'), cell: (n) => valueLabel(n.channel, lang) },
          { label: t('Recipient'), cell: (n) => n.to },
          { label: t('Status'), cell: (n) => <Status value={n.status} /> },
          {
            label: t('Invoice'),
            cell: (n) =>
              n.invoiceId ? <a href={`#/invoices/${n.invoiceId}`}>{number(n.invoiceId)}</a> : '—',
          },
          {
            label: t('Details'),
            cell: (n) => (
              <button
                type="button"
                aria-expanded={open === n.id}
                aria-label={`${t('Show')} #${n.id}`}
                onClick={() => setOpen(open === n.id ? null : n.id)}
              >
                {t('Show')}
              </button>
            ),
          },
        ]}
      />
      <Pager list={list} />
      {shown ? (
        <section class="form" aria-labelledby="message-title">
          <h2 id="message-title">
            {valueLabel(shown.kind, lang)} · {valueLabel(shown.channel, lang)} #{shown.id}
          </h2>
          {shown.subject ? (
            <p>
              <strong>{shown.subject}</strong>
            </p>
          ) : null}
          <pre class="mono" lang={shown.language}>
            {shown.text}
          </pre>
          {shown.lastError ? <p class="error">{shown.lastError}</p> : null}
        </section>
      ) : null}
    </Screen>
  );
}
