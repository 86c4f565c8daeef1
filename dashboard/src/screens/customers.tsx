import { useState } from 'preact/hooks';

import type { components } from '../../../clients/typescript/src/generated/schema';
import { call } from '../api';
import { useCtx } from '../context';
import { dateTime } from '../format';
import { ErrorNote, Field, Screen, Table } from '../ui';

type Entitlement = components['schemas']['EntitlementDto'];

/** A customer's entitlements (benefits granted), by the app's customer reference. */
export function CustomersScreen() {
  const { t, lang, app, can } = useCtx();
  const [reference, setReference] = useState('');
  const [rows, setRows] = useState<Entitlement[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const show = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const res = await call<Entitlement[]>(
        app.GET('/api/v1/customers/{externalId}/entitlements', {
          params: { path: { externalId: reference } },
        }),
      );
      setRows(res.data);
    } catch (err) {
      setRows(null);
      setError(err);
    }
  };
  return (
    <Screen title={t('Customers')} allowed={can('invoices:read')}>
      <form class="filters" role="search" onSubmit={show}>
        <Field
          label={t('Customer reference')}
          required
          value={reference}
          onInput={(e) => setReference(e.currentTarget.value)}
        />
        <button type="submit">{t('Show')}</button>
      </form>
      <ErrorNote error={error} />
      {rows ? (
        <Table
          caption={`${t('Entitlements')}: ${reference}`}
          rows={rows}
          columns={[
            { label: 'Key', cell: (r) => <code>{r.lookupKey}</code> },
            { label: t('Name'), cell: (r) => r.name },
            { label: t('Created'), cell: (r) => dateTime(r.grantedAt, lang) },
          ]}
        />
      ) : null}
    </Screen>
  );
}
