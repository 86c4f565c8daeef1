import type { components } from '../../../clients/typescript/src/generated/schema';
import { call } from '../api';
import { useCtx } from '../context';
import { dateTime, taka } from '../format';
import { ErrorNote, Ok, Pager, Screen, Table, useAction, useList } from '../ui';

type Refund = components['schemas']['RefundDto'];

/** Refunds above the app's approval threshold, waiting for an operator: approve or reject. */
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
        caption={t('Refunds awaiting approval')}
        rows={list.rows}
        loading={list.loading}
        columns={[
          { label: '#', cell: (r) => r.id },
          {
            label: t('Payments'),
            cell: (r) => <a href={`#/payments/${r.paymentId}`}>{r.paymentId}</a>,
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
    </Screen>
  );
}
