import { useEffect, useState } from 'preact/hooks';

import type { components } from '../../../clients/typescript/src/generated/schema';
import { call } from '../api';
import { useCtx } from '../context';
import { date, dateTime, parseTaka, taka } from '../format';
import {
  CopyButton,
  ErrorNote,
  Field,
  Pager,
  Screen,
  Select,
  Status,
  Table,
  useAction,
  useList,
} from '../ui';

type Invoice = components['schemas']['InvoiceDto'];
type Summary = components['schemas']['InvoiceSummaryDto'];
const STATUSES = ['ISSUED', 'PARTIALLY_PAID', 'PAID', 'VOID'] as const;

export function InvoicesScreen({ params }: { params: string[] }) {
  if (params[0] === 'new') return <CreateInvoice />;
  if (params[0]) return <InvoiceDetail id={Number(params[0])} />;
  return <InvoiceList />;
}

/** Search by number (the admin search), customer reference and status (the app's own list). */
function InvoiceList() {
  const { t, lang, app, admin, appId, mode, can } = useCtx();
  const [number, setNumber] = useState('');
  const [reference, setReference] = useState('');
  const [status, setStatus] = useState('');
  const [query, setQuery] = useState({ number: '', reference: '', status: '' });
  const list = useList<Summary | Invoice>(
    async (cursor) => {
      const page = { size: 20, cursor, sortBy: 'createdAt', order: 'desc' } as const;
      const s = (query.status || undefined) as (typeof STATUSES)[number] | undefined;
      if (query.number) {
        return call<Summary[]>(
          admin.GET('/api/v1/admin/invoices', {
            params: {
              query: { ...page, applicationId: appId, mode, number: query.number, status: s },
            },
          }),
        );
      }
      return call<Invoice[]>(
        app.GET('/api/v1/invoices', {
          params: {
            query: { ...page, status: s, customerReference: query.reference || undefined },
          },
        }),
      );
    },
    [query, app],
  );
  const ref = (i: Summary | Invoice) =>
    'customerReference' in i ? i.customerReference : i.customerExternalId;
  return (
    <Screen title={t('Invoices')} allowed={can('invoices:read')}>
      {can('invoices:write') ? (
        <p>
          <a class="button primary" href="#/invoices/new">
            {t('Create invoice')}
          </a>
        </p>
      ) : null}
      <form
        class="filters"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery({ number, reference, status });
        }}
      >
        <Field
          label={t('Number')}
          value={number}
          onInput={(e) => setNumber(e.currentTarget.value)}
        />
        <Field
          label={t('Customer reference')}
          value={reference}
          onInput={(e) => setReference(e.currentTarget.value)}
        />
        <Select
          label={t('Status')}
          value={status}
          onChange={(e) => setStatus(e.currentTarget.value)}
          options={[['', t('Any')], ...STATUSES.map((s) => [s, s] as [string, string])]}
        />
        <button type="submit">{t('Search')}</button>
      </form>
      <ErrorNote error={list.error} />
      <Table
        caption={t('Invoices')}
        rows={list.rows}
        loading={list.loading}
        columns={[
          {
            label: t('Number'),
            cell: (i) => <a href={`#/invoices/${i.id}`}>{i.number}</a>,
          },
          { label: t('Customer'), cell: (i) => ref(i) },
          { label: t('Status'), cell: (i) => <Status value={i.status} /> },
          { label: t('Total'), num: true, cell: (i) => taka(i.totalMinor, lang) },
          { label: t('Due'), num: true, cell: (i) => taka(i.amountDueMinor, lang) },
          { label: t('Due date'), cell: (i) => date(i.dueDate, lang) },
        ]}
      />
      <Pager list={list} />
    </Screen>
  );
}

function InvoiceDetail({ id }: { id: number }) {
  const { t, lang, app, can } = useCtx();
  const [invoice, setInvoice] = useState<Invoice | null>(null);
  const [error, setError] = useState<unknown>(null);
  const action = useAction();
  const load = () =>
    call<Invoice>(app.GET('/api/v1/invoices/{id}', { params: { path: { id } } }))
      .then((r) => setInvoice(r.data))
      .catch(setError);
  useEffect(() => {
    void load();
  }, [id, app]);
  return (
    <Screen title={`${t('Invoices')} ${invoice?.number ?? ''}`}>
      <p>
        <a href="#/invoices">{t('Back')}</a>
      </p>
      <ErrorNote error={error ?? action.error} />
      {invoice ? (
        <>
          <dl class="facts">
            <dt>{t('Status')}</dt>
            <dd>
              <Status value={invoice.status} />
            </dd>
            <dt>{t('Customer')}</dt>
            <dd>
              {invoice.customerReference}
              {invoice.customerName ? ` · ${invoice.customerName}` : ''}
            </dd>
            <dt>{t('Total')}</dt>
            <dd>{taka(invoice.totalMinor, lang)}</dd>
            <dt>{t('Paid')}</dt>
            <dd>{taka(invoice.amountPaidMinor, lang)}</dd>
            <dt>{t('Due')}</dt>
            <dd>{taka(invoice.amountDueMinor, lang)}</dd>
            <dt>{t('Due date')}</dt>
            <dd>{date(invoice.dueDate, lang)}</dd>
            <dt>{t('Issued')}</dt>
            <dd>{dateTime(invoice.issuedAt, lang)}</dd>
          </dl>
          {invoice.payableUrl ? (
            <div class="field">
              <label for="pay-link">{t('Pay link')}</label>
              <input id="pay-link" readOnly value={invoice.payableUrl} class="mono" />
              <CopyButton text={invoice.payableUrl} label={t('Copy pay link')} />
            </div>
          ) : null}
          <Table
            caption={t('Lines')}
            rows={
              invoice.lineItems as {
                description: string;
                qty: number;
                unitAmountMinor: number;
                amountMinor?: number;
              }[]
            }
            columns={[
              { label: t('Description'), cell: (l) => l.description },
              { label: t('Quantity'), num: true, cell: (l) => l.qty },
              {
                label: t('Amount'),
                num: true,
                cell: (l) => taka(BigInt(l.unitAmountMinor) * BigInt(l.qty), lang),
              },
            ]}
          />
          <Table
            caption={t('Payments')}
            rows={
              invoice.payments as {
                id: number;
                status: string;
                amountMinor: number;
                gateway: string;
                createdAt: string;
              }[]
            }
            columns={[
              { label: '#', cell: (p) => <a href={`#/payments/${p.id}`}>{p.id}</a> },
              { label: t('Status'), cell: (p) => <Status value={p.status} /> },
              { label: t('Gateway'), cell: (p) => p.gateway },
              { label: t('Amount'), num: true, cell: (p) => taka(p.amountMinor, lang) },
              { label: t('Created'), cell: (p) => dateTime(p.createdAt, lang) },
            ]}
          />
          {can('invoices:write') && invoice.status === 'ISSUED' ? (
            <button
              type="button"
              class="danger"
              disabled={action.busy}
              onClick={() =>
                action.run(async () => {
                  await call(app.POST('/api/v1/invoices/{id}/void', { params: { path: { id } } }));
                  await load();
                })
              }
            >
              {t('Void')}
            </button>
          ) : null}
        </>
      ) : null}
    </Screen>
  );
}

function CreateInvoice() {
  const { t, app, can, go } = useCtx();
  const [f, setF] = useState({
    customerReference: '',
    customerName: '',
    customerEmail: '',
    customerPhone: '',
    description: '',
    qty: '1',
    price: '',
    dueDate: '',
  });
  const action = useAction();
  const set = (k: keyof typeof f) => (e: { currentTarget: HTMLInputElement }) =>
    setF({ ...f, [k]: e.currentTarget.value });
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const unit = parseTaka(f.price);
      if (unit === null) throw new Error(`${t('Unit price (taka)')}: 1250.50`);
      const res = await call<Invoice>(
        app.POST('/api/v1/invoices', {
          body: {
            customerReference: f.customerReference,
            customerName: f.customerName || undefined,
            customerEmail: f.customerEmail || undefined,
            customerPhone: f.customerPhone || undefined,
            dueDate: f.dueDate || undefined,
            lineItems: [{ description: f.description, qty: Number(f.qty), unitAmountMinor: unit }],
          },
        }),
      );
      go(`invoices/${res.data.id}`);
    });
  };
  return (
    <Screen title={t('New invoice')} allowed={can('invoices:write')}>
      <form onSubmit={submit} class="form">
        <Field
          label={t('Customer reference')}
          required
          value={f.customerReference}
          onInput={set('customerReference')}
        />
        <Field label={t('Customer name')} value={f.customerName} onInput={set('customerName')} />
        <Field
          label={t('Customer email')}
          type="email"
          value={f.customerEmail}
          onInput={set('customerEmail')}
        />
        <Field
          label={t('Customer phone')}
          type="tel"
          value={f.customerPhone}
          onInput={set('customerPhone')}
        />
        <Field
          label={t('Description')}
          required
          value={f.description}
          onInput={set('description')}
        />
        <Field
          label={t('Quantity')}
          type="number"
          min="1"
          required
          value={f.qty}
          onInput={set('qty')}
        />
        <Field
          label={t('Unit price (taka)')}
          inputMode="decimal"
          required
          value={f.price}
          onInput={set('price')}
        />
        <Field label={t('Due date')} type="date" value={f.dueDate} onInput={set('dueDate')} />
        <ErrorNote error={action.error} />
        <button type="submit" class="primary" disabled={action.busy}>
          {t('Create')}
        </button>{' '}
        <a href="#/invoices">{t('Cancel')}</a>
      </form>
    </Screen>
  );
}
