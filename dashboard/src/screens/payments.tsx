import { useEffect, useState } from 'preact/hooks';

import type { components } from '../../../clients/typescript/src/generated/schema';
import { call } from '../api';
import { useCtx } from '../context';
import { csvName, downloadCsv, ListFilters, NO_RANGE, type Range, rangeQuery } from '../filters';
import { dateTime, digits, parseTaka, taka } from '../format';
import { RefundReason } from '../refund-reason';
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

type Payment = components['schemas']['PaymentDto'];
type Refund = components['schemas']['RefundDto'];
const STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'EXPIRED'] as const;
const GATEWAYS = ['sandbox', 'sslcommerz', 'bkash', 'nagad'];

export function PaymentsScreen({ params }: { params: string[] }) {
  return params[0] ? <PaymentDetail id={Number(params[0])} /> : <PaymentList />;
}

/**
 * The admin search kept to the picked app and mode: `Search` (payment id or
 * reference, gateway transaction id, customer reference, email or phone),
 * `From`/`To` (Dhaka days created), status, gateway, excess, risk; `Export
 * CSV` downloads every payment they select through the same route.
 */
function PaymentList() {
  const { t, lang, admin, appId, mode, can } = useCtx();
  const [range, setRange] = useState<Range>(NO_RANGE);
  const [f, setF] = useState({ status: '', gateway: '', excess: false, risk: false });
  const query = () => ({
    ...rangeQuery(range),
    applicationId: appId,
    mode,
    status: (f.status || undefined) as never,
    gateway: (f.gateway || undefined) as never,
    excess: f.excess ? ('true' as const) : undefined,
    risk: f.risk ? ('HIGH' as const) : undefined,
  });
  const list = useList<Payment>(
    (cursor) =>
      call<Payment[]>(
        admin.GET('/api/v1/admin/payments', {
          params: { query: { ...query(), size: 20, cursor } },
        }),
      ),
    [range, f, admin, appId, mode],
  );
  const exportCsv = () =>
    downloadCsv(admin, '/api/v1/admin/payments', query(), csvName('payments', range));
  return (
    <Screen title={t('Payments')} allowed={can('invoices:read')}>
      <ListFilters value={range} onApply={setRange} exportCsv={exportCsv}>
        <Select
          label={t('Status')}
          value={f.status}
          onChange={(e) => setF({ ...f, status: e.currentTarget.value })}
          options={[
            ['', t('Any')],
            ...STATUSES.map((s) => [s, valueLabel(s, lang)] as [string, string]),
          ]}
        />
        <Select
          label={t('Gateway')}
          value={f.gateway}
          onChange={(e) => setF({ ...f, gateway: e.currentTarget.value })}
          options={[['', t('Any')], ...GATEWAYS.map((g) => [g, g] as [string, string])]}
        />
        <label class="check">
          <input
            type="checkbox"
            checked={f.excess}
            onChange={(e) => setF({ ...f, excess: e.currentTarget.checked })}
          />
          {t('Excess only')}
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={f.risk}
            onChange={(e) => setF({ ...f, risk: e.currentTarget.checked })}
          />
          {t('High risk only')}
        </label>
      </ListFilters>
      <ErrorNote error={list.error} />
      <Table
        caption={t('Payments')}
        rows={list.rows}
        loading={list.loading}
        columns={[
          { label: t('Reference'), cell: (p) => <a href={`#/payments/${p.id}`}>{p.reference}</a> },
          { label: t('Status'), cell: (p) => <Status value={p.status} /> },
          { label: t('Gateway'), cell: (p) => p.gateway },
          { label: t('Amount'), num: true, cell: (p) => taka(p.amountMinor, lang) },
          { label: t('Created'), cell: (p) => dateTime(p.createdAt, lang) },
        ]}
      />
      <Pager list={list} />
    </Screen>
  );
}

function PaymentDetail({ id }: { id: number }) {
  const { t, lang, app, can } = useCtx();
  const [payment, setPayment] = useState<Payment | null>(null);
  const [refunds, setRefunds] = useState<Refund[]>([]);
  const [invoiceNumber, setInvoiceNumber] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const action = useAction();
  /** The payment, its refunds and its invoice's number, shown together. */
  const load = async () => {
    try {
      const [p, r] = await Promise.all([
        call<Payment>(app.GET('/api/v1/payments/{id}', { params: { path: { id } } })),
        call<Refund[]>(app.GET('/api/v1/payments/{id}/refunds', { params: { path: { id } } })),
      ]);
      // The invoice by its number (INV-000003), not its id.
      if (p.data.invoiceId && invoiceNumber === null) {
        const inv = await call<{ number: string }>(
          app.GET('/api/v1/invoices/{id}', { params: { path: { id: p.data.invoiceId } } }),
        ).catch(() => null);
        setInvoiceNumber(inv?.data.number ?? null);
      }
      setRefunds(r.data);
      setPayment(p.data);
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => {
    void load();
  }, [id, app]);
  const refundable = payment ? payment.amountMinor - payment.amountRefundedMinor : 0;
  return (
    <Screen title={`${t('Payment')} ${payment?.reference ?? ''}`}>
      <p>
        <a href="#/payments">{t('Back')}</a>
      </p>
      <ErrorNote error={error} />
      {payment ? (
        <>
          <dl class="facts">
            <dt>{t('Status')}</dt>
            <dd>
              <Status value={payment.status} />
            </dd>
            <dt>{t('Amount')}</dt>
            <dd>{taka(payment.amountMinor, lang)}</dd>
            <dt>{t('Refunded')}</dt>
            <dd>{taka(payment.amountRefundedMinor, lang)}</dd>
            <dt>{t('Gateway')}</dt>
            <dd>
              {payment.gateway}
              {payment.paymentMethodLabel ? ` · ${digits(payment.paymentMethodLabel, lang)}` : ''}
            </dd>
            {payment.gatewayTxnId ? (
              <>
                <dt>{t('Gateway transaction id')}</dt>
                <dd>
                  <code>{payment.gatewayTxnId}</code>
                </dd>
              </>
            ) : null}
            <dt>{t('Invoice')}</dt>
            <dd>
              {payment.invoiceId ? (
                <a href={`#/invoices/${payment.invoiceId}`}>
                  {invoiceNumber ?? `#${payment.invoiceId}`}
                </a>
              ) : (
                '—'
              )}
            </dd>
            <dt>{t('Created')}</dt>
            <dd>{dateTime(payment.createdAt, lang)}</dd>
          </dl>
          <Table
            caption={t('Refunds')}
            rows={refunds}
            columns={[
              { label: '#', cell: (r) => <code>{r.id}</code> },
              { label: t('Status'), cell: (r) => <Status value={r.status} /> },
              { label: t('Amount'), num: true, cell: (r) => taka(r.amountMinor, lang) },
              { label: t('Reason'), cell: (r) => r.reason ?? '' },
              { label: t('Created'), cell: (r) => dateTime(r.createdAt, lang) },
            ]}
          />
          {can('invoices:write') && payment.status === 'SUCCEEDED' && refundable > 0 ? (
            <form
              class="form"
              aria-label={t('Refund')}
              onSubmit={(e) => {
                e.preventDefault();
                void action.run(async () => {
                  const minor = amount.trim() ? parseTaka(amount) : undefined;
                  if (minor === null) throw new Error(`${t('Refund amount (taka)')}: 100.00`);
                  await call(
                    app.POST('/api/v1/payments/{id}/refunds', {
                      params: { path: { id } },
                      body: { amountMinor: minor, reason: reason || undefined },
                    }),
                  );
                  setAmount('');
                  await load();
                }, t('Done'));
              }}
            >
              <h2>{t('Refund')}</h2>
              <Field
                label={t('Refund amount (taka)')}
                inputMode="decimal"
                placeholder={taka(refundable, lang)}
                value={amount}
                onInput={(e) => setAmount(e.currentTarget.value)}
              />
              <RefundReason value={reason} onChange={setReason} />
              <ErrorNote error={action.error} />
              <button type="submit" class="primary" disabled={action.busy}>
                {t('Refund')}
              </button>
            </form>
          ) : null}
          {/* Outside the form: a full refund leaves nothing to refund, and the form goes. */}
          <Ok text={action.done} />
        </>
      ) : null}
    </Screen>
  );
}
