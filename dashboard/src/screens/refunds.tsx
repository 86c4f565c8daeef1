import { useState } from 'preact/hooks';

import type { components } from '../../../clients/typescript/src/generated/schema';
import { call } from '../api';
import { useCtx } from '../context';
import { csvName, downloadCsv, ListFilters, NO_RANGE, type Range, rangeQuery } from '../filters';
import { dateTime, taka } from '../format';
import { useInvoiceNumbers } from '../invoice-numbers';
import {
  ErrorNote,
  Field,
  Ok,
  Pager,
  Screen,
  Select,
  Status,
  Table,
  useAction,
  useList,
} from '../ui';
import { valueLabel } from '../values';

type Refund = components['schemas']['RefundDto'];
const STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED'] as const;

/**
 * Refunds above the app's approval threshold, waiting for an operator
 * (approve or reject), then every refund of the app and mode: `Search`,
 * `From`/`To`, status, `Export CSV`. A manual refund (its gateway has no
 * refund call, e.g. Nagad) shows `Manual`; once paid back outside Joma,
 * `Mark refunded` completes it (refunds:approve).
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
          { label: t('Reason'), cell: (r) => <ReasonCell refund={r} /> },
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

/** A refund's reason, and `Manual` when an operator pays it back outside Joma. */
function ReasonCell({ refund }: { refund: Refund }) {
  const { t } = useCtx();
  if (!refund.manual) return <>{refund.reason ?? ''}</>;
  return (
    <>
      <span class="badge" title={t('The gateway has no refund call: pay it back outside Joma')}>
        {t('Manual')}
      </span>{' '}
      {refund.reason ?? ''}
    </>
  );
}

/**
 * Completes a manual refund once the customer was paid back outside Joma
 * (POST /admin/refunds/{id}/complete), with the reference the operator got.
 */
function MarkRefunded({ refund, onDone }: { refund: Refund; onDone: (ok: boolean) => void }) {
  const { t, admin } = useCtx();
  const action = useAction();
  const [reference, setReference] = useState('');
  return (
    <form
      class="form"
      aria-label={`${t('Mark refunded')} #${refund.id}`}
      onSubmit={(e) => {
        e.preventDefault();
        void action
          .run(() =>
            call(
              admin.POST('/api/v1/admin/refunds/{id}/complete', {
                params: { path: { id: refund.id } },
                body: { gatewayRefundId: reference.trim() || undefined },
              }),
            ),
          )
          .then((ok) => ok && onDone(true));
      }}
    >
      <h2>{`${t('Mark refunded')} #${refund.id}`}</h2>
      <p>{t('Pay the customer back outside Joma first; this marks the refund succeeded.')}</p>
      <Field
        label={t('Reference (optional)')}
        hint={t('The reference you got for the money sent back')}
        maxLength={64}
        value={reference}
        onInput={(e) => setReference(e.currentTarget.value)}
      />
      <ErrorNote error={action.error} />
      <span class="actions">
        <button type="submit" class="primary" disabled={action.busy}>
          {t('Mark refunded')}
        </button>
        <button type="button" disabled={action.busy} onClick={() => onDone(false)}>
          {t('Cancel')}
        </button>
      </span>
    </form>
  );
}

/** Every refund of the app and mode (GET /refunds), filtered, with its CSV. */
function AllRefunds() {
  const { t, lang, app, can } = useCtx();
  const [completing, setCompleting] = useState<Refund | null>(null);
  const [marked, setMarked] = useState<string | null>(null);
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
      <Ok text={marked} />
      {completing ? (
        <MarkRefunded
          refund={completing}
          onDone={(ok) => {
            setCompleting(null);
            if (!ok) return;
            setMarked(t('Done'));
            void list.reload();
          }}
        />
      ) : null}
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
          { label: t('Reason'), cell: (r) => <ReasonCell refund={r} /> },
          { label: t('Created'), cell: (r) => dateTime(r.createdAt, lang) },
          {
            label: t('Action'),
            cell: (r) =>
              r.manual && r.status === 'PENDING' && can('refunds:approve') ? (
                <button
                  type="button"
                  onClick={() => {
                    setMarked(null);
                    setCompleting(r);
                  }}
                  aria-label={`${t('Mark refunded')} #${r.id}`}
                >
                  {t('Mark refunded')}
                </button>
              ) : (
                ''
              ),
          },
        ]}
      />
      <Pager list={list} />
    </>
  );
}
