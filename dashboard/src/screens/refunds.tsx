import { useState } from 'preact/hooks';

import type { components } from '../../../clients/typescript/src/generated/schema';
import { call } from '../api';
import { useCtx } from '../context';
import { csvName, downloadCsv, ListFilters, NO_RANGE, type Range, rangeQuery } from '../filters';
import { dateTime, taka } from '../format';
import { useInvoiceNumbers } from '../invoice-numbers';
import { ErrorNote, Ok, Pager, Screen, Select, Status, Table, useAction, useList } from '../ui';
import { valueLabel } from '../values';

type Refund = components['schemas']['RefundDto'];
const STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED'] as const;

/**
 * Refunds above the app's approval threshold, waiting for an operator
 * (approve or reject), then every refund of the app and mode: `Search`,
 * `From`/`To`, status, `Export CSV`.
 */
export function RefundsScreen() {
  const { t, lang, admin, appId, mode, can } = useCtx();
  const action = useAction();
  const list = useList<Refund>(
    (cursor) =>
      call<Refund[]>(
        admin.GET('/api/v1/admin/refunds', {
          params: {
            query: { size: 20, cursor, applicationId: appId, mode, awaitingApproval: 'true' },
          },
        }),
      ),
    [admin, appId, mode],
  );
  const decide = (id: number, how: 'approve' | 'reject') =>
    action.run(async () => {
      await call(
        how === 'approve'
          ? admin.POST('/api/v1/admin/refunds/{id}/approve', { params: { path: { id } } })
          : admin.POST('/api/v1/admin/refunds/{id}/reject', { params: { path: { id } } }),
      );
      await list.reload();
    }, t('Done'));
  return (
    <Screen title={t('Refunds')} allowed={can('invoices:read')}>
      <p>{t('Refunds above the approval threshold wait here.')}</p>
      <ErrorNote error={list.error ?? action.error} />
      <Ok text={action.done} />
      <Table
        caption={t('Awaiting approval')}
        rows={list.rows}
        loading={list.loading}
        columns={[
          { label: '#', cell: (r) => <code>{r.id}</code> },
          {
            label: t('Payment'),
            cell: (r) => <a href={`#/payments/${r.paymentId}`}>{`#${r.paymentId}`}</a>,
          },
          { label: t('Amount'), num: true, cell: (r) => taka(r.amountMinor, lang) },
          { label: t('Reason'), cell: (r) => r.reason ?? '' },
          { label: t('Created'), cell: (r) => dateTime(r.createdAt, lang) },
          {
            label: t('Action'),
            cell: (r) =>
              can('refunds:approve') ? (
                <span class="actions">
                  <button
                    type="button"
                    class="primary"
                    disabled={action.busy}
                    onClick={() => decide(r.id, 'approve')}
                    aria-label={`${t('Approve')} #${r.id}`}
                  >
                    {t('Approve')}
                  </button>
                  <button
                    type="button"
                    class="danger"
                    disabled={action.busy}
                    onClick={() => decide(r.id, 'reject')}
                    aria-label={`${t('Reject')} #${r.id}`}
                  >
                    {t('Reject')}
                  </button>
                </span>
              ) : (
                '—'
              ),
          },
        ]}
      />
      <Pager list={list} />
      <AllRefunds />
    </Screen>
  );
}

/** Every refund of the app and mode (GET /refunds), filtered, with its CSV. */
function AllRefunds() {
  const { t, lang, app } = useCtx();
  const [range, setRange] = useState<Range>(NO_RANGE);
  const [status, setStatus] = useState('');
  const query = () => ({
    ...rangeQuery(range),
    status: (status || undefined) as (typeof STATUSES)[number] | undefined,
  });
  const list = useList<Refund>(
    (cursor) =>
      call<Refund[]>(
        app.GET('/api/v1/refunds', { params: { query: { ...query(), size: 20, cursor } } }),
      ),
    [range, status, app],
  );
  const number = useInvoiceNumbers(list.rows.map((r) => r.invoiceId));
  const exportCsv = () => downloadCsv(app, '/api/v1/refunds', query(), csvName('refunds', range));
  return (
    <>
      <h2>{t('All refunds')}</h2>
      <ListFilters value={range} onApply={setRange} exportCsv={exportCsv}>
        <Select
          label={t('Status')}
          value={status}
          onChange={(e) => setStatus(e.currentTarget.value)}
          options={[
            ['', t('Any')],
            ...STATUSES.map((s) => [s, valueLabel(s, lang)] as [string, string]),
          ]}
        />
      </ListFilters>
      <ErrorNote error={list.error} />
      <Table
        caption={t('Refunds')}
        rows={list.rows}
        loading={list.loading}
        columns={[
          { label: '#', cell: (r) => <code>{r.id}</code> },
          { label: t('Status'), cell: (r) => <Status value={r.status} /> },
          { label: t('Amount'), num: true, cell: (r) => taka(r.amountMinor, lang) },
          {
            label: t('Payment'),
            cell: (r) => <a href={`#/payments/${r.paymentId}`}>{`#${r.paymentId}`}</a>,
          },
          {
            label: t('Invoice'),
            cell: (r) =>
              r.invoiceId ? <a href={`#/invoices/${r.invoiceId}`}>{number(r.invoiceId)}</a> : '—',
          },
          { label: t('Reason'), cell: (r) => r.reason ?? '' },
          { label: t('Created'), cell: (r) => dateTime(r.createdAt, lang) },
        ]}
      />
      <Pager list={list} />
    </>
  );
}
