import { useEffect, useState } from 'preact/hooks';

import type { components } from '../../../clients/typescript/src/generated/schema';
import { call } from '../api';
import { useCtx } from '../context';
import { date, num, taka } from '../format';
import { ErrorNote, Field, Pager, Screen, Select, Status, Table, useAction, useList } from '../ui';
import { valueLabel } from '../values';

type Subscription = components['schemas']['SubscriptionDto'];
type Invoice = components['schemas']['InvoiceDto'];
const STATUSES = ['INCOMPLETE', 'TRIALING', 'ACTIVE', 'PAST_DUE', 'PAUSED', 'CANCELED'] as const;

export function SubscriptionsScreen({ params }: { params: string[] }) {
  return params[0] ? <SubscriptionDetail id={Number(params[0])} /> : <SubscriptionList />;
}

function SubscriptionList() {
  const { t, lang, app, can } = useCtx();
  const [f, setF] = useState({ status: '', customerReference: '' });
  const [query, setQuery] = useState(f);
  const list = useList<Subscription>(
    (cursor) =>
      call<Subscription[]>(
        app.GET('/api/v1/subscriptions', {
          params: {
            query: {
              size: 20,
              cursor,
              status: (query.status || undefined) as never,
              customerReference: query.customerReference || undefined,
            },
          },
        }),
      ),
    [query, app],
  );
  return (
    <Screen title={t('Subscriptions')} allowed={can('invoices:read')}>
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery(f);
        }}
      >
        <Select
          label={t('Status')}
          value={f.status}
          onChange={(e) => setF({ ...f, status: e.currentTarget.value })}
          options={[
            ['', t('Any')],
            ...STATUSES.map((s) => [s, valueLabel(s, lang)] as [string, string]),
          ]}
        />
        <Field
          label={t('Customer reference')}
          value={f.customerReference}
          onInput={(e) => setF({ ...f, customerReference: e.currentTarget.value })}
        />
        <button type="submit">{t('Search')}</button>
      </form>
      <ErrorNote error={list.error} />
      <Table
        caption={t('Subscriptions')}
        rows={list.rows}
        loading={list.loading}
        columns={[
          { label: '#', cell: (s) => <a href={`#/subscriptions/${s.id}`}>{s.id}</a> },
          {
            label: t('Customer'),
            cell: (s) => (
              <a href={`#/customers/${encodeURIComponent(s.customerReference)}`}>
                {s.customerReference}
              </a>
            ),
          },
          { label: t('Status'), cell: (s) => <Status value={s.status} /> },
          { label: t('Amount'), num: true, cell: (s) => taka(s.amountMinor, lang) },
          { label: t('Next billing'), cell: (s) => date(s.nextBillingDate, lang) },
        ]}
      />
      <Pager list={list} />
    </Screen>
  );
}

function SubscriptionDetail({ id }: { id: number }) {
  const { t, lang, app, can } = useCtx();
  const [sub, setSub] = useState<Subscription | null>(null);
  const [invoices, setInvoices] = useState<Invoice[]>([]);
  const [error, setError] = useState<unknown>(null);
  const action = useAction();
  const load = async () => {
    try {
      setSub(
        (
          await call<Subscription>(
            app.GET('/api/v1/subscriptions/{id}', { params: { path: { id } } }),
          )
        ).data,
      );
      setInvoices(
        (
          await call<Invoice[]>(
            app.GET('/api/v1/invoices', { params: { query: { subscriptionId: id, size: 50 } } }),
          )
        ).data,
      );
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => {
    void load();
  }, [id, app]);
  const act = (what: 'pause' | 'resume' | 'cancel') =>
    action.run(async () => {
      const path = { params: { path: { id } } };
      await call(
        what === 'pause'
          ? app.POST('/api/v1/subscriptions/{id}/pause', path)
          : what === 'resume'
            ? app.POST('/api/v1/subscriptions/{id}/resume', path)
            : app.POST('/api/v1/subscriptions/{id}/cancel', { ...path, body: {} }),
      );
      await load();
    });
  return (
    <Screen title={`${t('Subscriptions')} #${id}`}>
      <p>
        <a href="#/subscriptions">{t('Back')}</a>
      </p>
      <ErrorNote error={error ?? action.error} />
      {sub ? (
        <>
          <dl class="facts">
            <dt>{t('Status')}</dt>
            <dd>
              <Status value={sub.status} />
            </dd>
            <dt>{t('Customer')}</dt>
            <dd>
              <a href={`#/customers/${encodeURIComponent(sub.customerReference)}`}>
                {sub.customerReference}
              </a>
            </dd>
            <dt>{t('Amount')}</dt>
            <dd>
              {taka(sub.amountMinor, lang)} / {num(sub.intervalCount, lang)}{' '}
              {valueLabel(sub.interval, lang)}
            </dd>
            <dt>{t('Next billing')}</dt>
            <dd>{date(sub.nextBillingDate, lang)}</dd>
          </dl>
          {can('invoices:write') ? (
            <p class="actions">
              {['TRIALING', 'ACTIVE', 'PAST_DUE'].includes(sub.status) ? (
                <button type="button" disabled={action.busy} onClick={() => act('pause')}>
                  {t('Pause')}
                </button>
              ) : null}
              {sub.status === 'PAUSED' ? (
                <button type="button" disabled={action.busy} onClick={() => act('resume')}>
                  {t('Resume')}
                </button>
              ) : null}
              {sub.status !== 'CANCELED' ? (
                <button
                  type="button"
                  class="danger"
                  disabled={action.busy}
                  onClick={() => act('cancel')}
                >
                  {t('Cancel subscription')}
                </button>
              ) : null}
            </p>
          ) : null}
          <Table
            caption={t('Invoices')}
            rows={invoices}
            columns={[
              { label: t('Number'), cell: (i) => <a href={`#/invoices/${i.id}`}>{i.number}</a> },
              { label: t('Status'), cell: (i) => <Status value={i.status} /> },
              { label: t('Total'), num: true, cell: (i) => taka(i.totalMinor, lang) },
              { label: t('Due date'), cell: (i) => date(i.dueDate, lang) },
            ]}
          />
        </>
      ) : null}
    </Screen>
  );
}
