import type { components } from '../../../clients/typescript/src/generated/schema';
import { call } from '../api';
import { useCtx } from '../context';
import { taka } from '../format';
import { ErrorNote, Screen, Table, useList } from '../ui';

type Balance = components['schemas']['LedgerBalanceDto'];

/** The app's ledger balances in this mode: one row per account; they sum to zero. */
export function LedgerScreen() {
  const { t, lang, admin, appId, mode, can } = useCtx();
  const list = useList<Balance>(
    () =>
      call<Balance[]>(
        admin.GET('/api/v1/admin/ledger/balances', {
          params: { query: { applicationId: appId, mode } },
        }),
      ),
    [admin, appId, mode],
  );
  return (
    <Screen title={t('Ledger')} allowed={can('invoices:read')}>
      <ErrorNote error={list.error} />
      <Table
        caption={t('Balance')}
        rows={list.rows}
        loading={list.loading}
        columns={[
          { label: t('Account'), cell: (b) => <code>{b.account}</code> },
          { label: t('Debit'), num: true, cell: (b) => taka(b.debitMinor, lang) },
          { label: t('Credit'), num: true, cell: (b) => taka(b.creditMinor, lang) },
          { label: t('Balance'), num: true, cell: (b) => taka(b.balanceMinor, lang) },
        ]}
      />
    </Screen>
  );
}
