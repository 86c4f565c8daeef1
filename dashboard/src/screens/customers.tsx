import { useEffect, useId, useState } from 'preact/hooks';

import type { components } from '../../../clients/typescript/src/generated/schema';
import { call } from '../api';
import { useCtx } from '../context';
import { date, dateTime, num, taka } from '../format';
import { ErrorNote, Pager, Screen, Status, Table, useList } from '../ui';

type Customer = components['schemas']['CustomerDto'];
type Profile = components['schemas']['CustomerProfileDto'];

export function CustomersScreen({ params }: { params: string[] }) {
  return params[0] ? (
    <CustomerDetail reference={decodeURIComponent(params[0])} />
  ) : (
    <CustomerList />
  );
}

/** The app's customers (GET /customers): `Search` by reference, name, email or phone. */
function CustomerList() {
  const { t, lang, app, can } = useCtx();
  const id = useId();
  const [q, setQ] = useState('');
  const [applied, setApplied] = useState('');
  const list = useList<Customer>(
    (cursor) =>
      call<Customer[]>(
        app.GET('/api/v1/customers', {
          params: { query: { size: 20, cursor, q: applied.trim() || undefined } },
        }),
      ),
    [applied, app],
  );
  return (
    <Screen title={t('Customers')} allowed={can('invoices:read')}>
      <form
        class="filters"
        role="search"
        aria-label={t('Filters')}
        onSubmit={(e) => {
          e.preventDefault();
          setApplied(q);
        }}
      >
        <div class="field field-search">
          <label for={`${id}-q`}>{t('Search')}</label>
          <input
            id={`${id}-q`}
            type="search"
            value={q}
            aria-describedby={`${id}-hint`}
            onInput={(e) => setQ(e.currentTarget.value)}
            onChange={(e) => setApplied(e.currentTarget.value)}
          />
          <small id={`${id}-hint`} class="hint">
            {t('Reference, name, email or phone')}
          </small>
        </div>
      </form>
      <ErrorNote error={list.error} />
      <Table
        caption={t('Customers')}
        rows={list.rows}
        loading={list.loading}
        columns={[
          {
            label: t('Reference'),
            cell: (c) => (
              <a href={`#/customers/${encodeURIComponent(c.reference)}`}>{c.reference}</a>
            ),
          },
          { label: t('Name'), cell: (c) => c.name ?? '—' },
          { label: t('Email'), cell: (c) => c.email ?? '—' },
          { label: t('Phone'), cell: (c) => c.phone ?? '—' },
          { label: t('Created'), cell: (c) => dateTime(c.createdAt, lang) },
        ]}
      />
      <Pager list={list} />
    </Screen>
  );
}

/** One customer (GET /customers/{reference}): invoices, payments, subscriptions, entitlements. */
function CustomerDetail({ reference }: { reference: string }) {
  const { t, lang, app, can } = useCtx();
  const [c, setC] = useState<Profile | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    call<Profile>(app.GET('/api/v1/customers/{reference}', { params: { path: { reference } } }))
      .then((r) => setC(r.data))
      .catch(setError);
  }, [reference, app]);
  /** "Invoices (3 of 25)" when the detail shows the newest only. */
  const caption = (label: string, shown: number, total: number) =>
    total > shown
      ? `${t(label)} (${num(shown, lang)} / ${num(total, lang)})`
      : `${t(label)} (${num(total, lang)})`;
  return (
    <Screen title={`${t('Customer')} ${reference}`} allowed={can('invoices:read')}>
      <p>
        <a href="#/customers">{t('Back')}</a>
      </p>
      <ErrorNote error={error} />
      {c ? (
        <>
          <dl class="facts">
            <dt>{t('Reference')}</dt>
            <dd>
              <code>{c.reference}</code>
            </dd>
            <dt>{t('Name')}</dt>
            <dd>{c.name ?? '—'}</dd>
            <dt>{t('Email')}</dt>
            <dd>{c.email ?? '—'}</dd>
            <dt>{t('Phone')}</dt>
            <dd>{c.phone ?? '—'}</dd>
            <dt>{t('Created')}</dt>
            <dd>{dateTime(c.createdAt, lang)}</dd>
          </dl>
          <h2>{t('Invoices')}</h2>
          <Table
            caption={caption('Invoices', c.invoices.length, c.invoicesTotal)}
            rows={c.invoices}
            columns={[
              { label: t('Number'), cell: (i) => <a href={`#/invoices/${i.id}`}>{i.number}</a> },
              { label: t('Status'), cell: (i) => <Status value={i.status} /> },
              { label: t('Total'), num: true, cell: (i) => taka(i.totalMinor, lang) },
              { label: t('Due'), num: true, cell: (i) => taka(i.amountDueMinor, lang) },
              { label: t('Due date'), cell: (i) => date(i.dueDate, lang) },
            ]}
          />
          <h2>{t('Payments')}</h2>
          <Table
            caption={caption('Payments', c.payments.length, c.paymentsTotal)}
            rows={c.payments}
            columns={[
              {
                label: t('Reference'),
                cell: (p) => <a href={`#/payments/${p.id}`}>{p.reference}</a>,
              },
              { label: t('Status'), cell: (p) => <Status value={p.status} /> },
              { label: t('Amount'), num: true, cell: (p) => taka(p.amountMinor, lang) },
              { label: t('Created'), cell: (p) => dateTime(p.createdAt, lang) },
            ]}
          />
          <h2>{t('Subscriptions')}</h2>
          <Table
            caption={caption('Subscriptions', c.subscriptions.length, c.subscriptionsTotal)}
            rows={c.subscriptions}
            columns={[
              { label: '#', cell: (s) => <a href={`#/subscriptions/${s.id}`}>{`#${s.id}`}</a> },
              { label: t('Status'), cell: (s) => <Status value={s.status} /> },
              { label: t('Amount'), num: true, cell: (s) => taka(s.amountMinor, lang) },
              { label: t('Next billing'), cell: (s) => date(s.nextBillingDate, lang) },
            ]}
          />
          <h2>{t('Entitlements')}</h2>
          <Table
            caption={caption('Entitlements', c.entitlements.length, c.entitlementsTotal)}
            rows={c.entitlements}
            columns={[
              { label: t('Lookup key'), cell: (r) => <code>{r.lookupKey}</code> },
              { label: t('Name'), cell: (r) => r.name },
              { label: t('Granted'), cell: (r) => dateTime(r.grantedAt, lang) },
            ]}
          />
        </>
      ) : null}
    </Screen>
  );
}
