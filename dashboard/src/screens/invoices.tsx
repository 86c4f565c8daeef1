import { useEffect, useState } from 'preact/hooks';

import type { components } from '../../../clients/typescript/src/generated/schema';
import { call } from '../api';
import { useCtx } from '../context';
import { csvName, downloadCsv, ListFilters, NO_RANGE, type Range, rangeQuery } from '../filters';
import { date, dateTime, digits, num, parseQty, parseTaka, taka } from '../format';
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
import { valueLabel } from '../values';

type Invoice = components['schemas']['InvoiceDto'];
type ListItem = components['schemas']['InvoiceListItemDto'];
const STATUSES = ['ISSUED', 'PARTIALLY_PAID', 'PAID', 'VOID'] as const;

export function InvoicesScreen({ params }: { params: string[] }) {
  if (params[0] === 'new') return <CreateInvoice />;
  if (params[0]) return <InvoiceDetail id={Number(params[0])} />;
  return <InvoiceList />;
}

/**
 * The app's invoices: `Search` (number, customer reference, email or phone,
 * a payment's id or gateway transaction id), `From`/`To` (Dhaka days they
 * were created), status; `Export CSV` downloads every invoice the filters
 * select through the same route.
 */
function InvoiceList() {
  const { t, lang, app, can } = useCtx();
  const [range, setRange] = useState<Range>(NO_RANGE);
  const [status, setStatus] = useState('');
  const query = () => ({
    ...rangeQuery(range),
    status: (status || undefined) as (typeof STATUSES)[number] | undefined,
  });
  const list = useList<ListItem>(
    (cursor) =>
      call<ListItem[]>(
        app.GET('/api/v1/invoices', {
          params: {
            query: { ...query(), size: 20, cursor, sortBy: 'createdAt', order: 'desc' },
          },
        }),
      ),
    [range, status, app],
  );
  const exportCsv = () => downloadCsv(app, '/api/v1/invoices', query(), csvName('invoices', range));
  return (
    <Screen title={t('Invoices')} allowed={can('invoices:read')}>
      {can('invoices:write') ? (
        <p>
          <a class="button primary" href="#/invoices/new">
            {t('Create invoice')}
          </a>
        </p>
      ) : null}
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
        caption={t('Invoices')}
        rows={list.rows}
        loading={list.loading}
        columns={[
          {
            label: t('Number'),
            cell: (i) => <a href={`#/invoices/${i.id}`}>{i.number}</a>,
          },
          { label: t('Customer'), cell: (i) => i.customerReference },
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
    <Screen title={`${t('Invoice')} ${invoice?.number ?? ''}`}>
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
              <a href={`#/customers/${encodeURIComponent(invoice.customerReference)}`}>
                {invoice.customerReference}
              </a>
              {invoice.customerName ? ` · ${invoice.customerName}` : ''}
            </dd>
            {invoice.customerEmail ? (
              <>
                <dt>{t('Email')}</dt>
                <dd>{invoice.customerEmail}</dd>
              </>
            ) : null}
            {invoice.customerPhone ? (
              <>
                <dt>{t('Phone')}</dt>
                <dd>{invoice.customerPhone}</dd>
              </>
            ) : null}
            <dt>{t('Message language')}</dt>
            <dd>
              {invoice.customerLanguage === 'bn'
                ? 'বাংলা'
                : invoice.customerLanguage === 'en'
                  ? 'English'
                  : t("The app's default")}
            </dd>
            <dt>{t('Send to customer')}</dt>
            <dd>{invoice.notifyCustomer ? t('Yes') : t('No')}</dd>
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
              { label: t('Quantity'), num: true, cell: (l) => num(l.qty, lang) },
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
                reference: string;
                status: string;
                amountMinor: number;
                gateway: string;
                createdAt: string;
              }[]
            }
            columns={[
              {
                label: t('Reference'),
                cell: (p) => <a href={`#/payments/${p.id}`}>{p.reference}</a>,
              },
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

interface LineDraft {
  description: string;
  qty: string;
  price: string;
}

const NEW_LINE: LineDraft = { description: '', qty: '1', price: '' };

/**
 * A new invoice (POST /invoices): the customer (reference, name, email,
 * phone, language), several lines (`Add line`), amounts in taka with up to
 * two decimals (read as integer poisha, never through a float), and `Send to
 * customer` (notifyCustomer: the invoice and its pay link go to the
 * customer's email and phone when it is issued).
 */
function CreateInvoice() {
  const { t, lang, app, can, go } = useCtx();
  const [f, setF] = useState({
    customerReference: '',
    customerName: '',
    customerEmail: '',
    customerPhone: '',
    customerLanguage: '',
    notifyCustomer: false,
    dueDate: '',
  });
  // A new line's quantity reads 1 in the language's digits (parseQty reads both).
  const newLine = (): LineDraft => ({ ...NEW_LINE, qty: digits('1', lang) });
  const [lines, setLines] = useState<LineDraft[]>([newLine()]);
  const [focusLine, setFocusLine] = useState<number | null>(null);
  const action = useAction();
  const set = (k: keyof typeof f) => (e: { currentTarget: HTMLInputElement | HTMLSelectElement }) =>
    setF({ ...f, [k]: e.currentTarget.value });
  const setLine = (i: number, k: keyof LineDraft) => (e: { currentTarget: HTMLInputElement }) =>
    setLines(lines.map((l, j) => (j === i ? { ...l, [k]: e.currentTarget.value } : l)));
  // `Add line` moves the focus to the new line's first field.
  useEffect(() => {
    if (focusLine === null) return;
    document.querySelectorAll<HTMLInputElement>('.line input')[focusLine * 3]?.focus();
    setFocusLine(null);
  }, [focusLine]);
  // The total as typed so far (a line not yet an amount counts nothing).
  const total = lines.reduce((s, l) => {
    const unit = parseTaka(l.price);
    const qty = parseQty(l.qty);
    return unit === null || qty === null ? s : s + BigInt(unit) * BigInt(qty);
  }, 0n);
  const submit = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const lineItems = lines.map((l, i) => {
        const unitAmountMinor = parseTaka(l.price);
        const qty = parseQty(l.qty);
        const which = `${t('Line')} ${num(i + 1, lang)}`;
        if (unitAmountMinor === null)
          throw new Error(
            `${which}: ${t('Unit price (taka)')}: ${t('taka with up to two decimals, e.g. 1250.50')}`,
          );
        if (qty === null) throw new Error(`${which}: ${t('Quantity')}: 1, 2, 3 …`);
        return { description: l.description, qty, unitAmountMinor };
      });
      const res = await call<Invoice>(
        app.POST('/api/v1/invoices', {
          body: {
            customerReference: f.customerReference,
            customerName: f.customerName || undefined,
            customerEmail: f.customerEmail || undefined,
            customerPhone: f.customerPhone || undefined,
            customerLanguage: (f.customerLanguage || undefined) as 'bn' | 'en' | undefined,
            notifyCustomer: f.notifyCustomer,
            dueDate: f.dueDate || undefined,
            lineItems,
          },
        }),
      );
      go(`invoices/${res.data.id}`);
    });
  };
  return (
    <Screen title={t('New invoice')} allowed={can('invoices:write')}>
      <form onSubmit={submit} class="form" aria-labelledby="screen-title">
        <fieldset class="group">
          <legend>{t('Customer')}</legend>
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
            hint={digits('01XXXXXXXXX', lang)}
          />
          <Select
            label={t('Customer language')}
            value={f.customerLanguage}
            onChange={set('customerLanguage')}
            options={[
              ['', t("The app's default")],
              ['bn', 'বাংলা'],
              ['en', 'English'],
            ]}
          />
        </fieldset>
        {lines.map((l, i) => (
          <fieldset class="group line">
            <legend>{`${t('Line')} ${num(i + 1, lang)}`}</legend>
            <Field
              label={t('Description')}
              required
              value={l.description}
              onInput={setLine(i, 'description')}
            />
            <div class="line-figures">
              <Field
                label={t('Quantity')}
                inputMode="numeric"
                required
                value={l.qty}
                onInput={setLine(i, 'qty')}
              />
              <Field
                label={t('Unit price (taka)')}
                inputMode="decimal"
                required
                value={l.price}
                onInput={setLine(i, 'price')}
              />
            </div>
            {lines.length > 1 ? (
              <button
                type="button"
                class="danger"
                aria-label={`${t('Remove line')} ${num(i + 1, lang)}`}
                onClick={() => setLines(lines.filter((_, j) => j !== i))}
              >
                {t('Remove line')}
              </button>
            ) : null}
          </fieldset>
        ))}
        <p>
          <button
            type="button"
            onClick={() => {
              setLines([...lines, newLine()]);
              setFocusLine(lines.length);
            }}
          >
            {t('Add line')}
          </button>
        </p>
        <p class="total" aria-live="polite">
          {t('Total')}: <strong>{taka(total, lang)}</strong>
        </p>
        <Field label={t('Due date')} type="date" value={f.dueDate} onInput={set('dueDate')} />
        <label class="check">
          <input
            type="checkbox"
            checked={f.notifyCustomer}
            onChange={(e) => setF({ ...f, notifyCustomer: e.currentTarget.checked })}
          />
          {t('Send to customer')}
        </label>
        <ErrorNote error={action.error} />
        <button type="submit" class="primary" disabled={action.busy}>
          {t('Create')}
        </button>{' '}
        <a href="#/invoices">{t('Cancel')}</a>
      </form>
    </Screen>
  );
}
