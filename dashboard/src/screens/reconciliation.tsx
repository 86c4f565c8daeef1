import { useEffect, useState } from 'preact/hooks';

import type { components } from '../../../clients/typescript/src/generated/schema';
import { call } from '../api';
import { useCtx } from '../context';
import { date, dateTime, dhakaToday, num, taka } from '../format';
import { ErrorNote, Field, Pager, Screen, Select, Status, Table, useAction, useList } from '../ui';
import { valueLabel } from '../values';

type Run = components['schemas']['ReconciliationRunDto'];
type Item = components['schemas']['ReconciliationItemDto'];
type ImportResult = components['schemas']['SettlementImportResultDto'];

export function ReconciliationScreen({ params }: { params: string[] }) {
  return params[0] ? <RunView id={Number(params[0])} /> : <Runs />;
}

/** Upload a settlement CSV, run a day, and the runs of this app. */
function Runs() {
  const { t, lang, admin, appId, mode, can, go } = useCtx();
  const [gateway, setGateway] = useState('sandbox');
  const [file, setFile] = useState<File | null>(null);
  const [imported, setImported] = useState<ImportResult | null>(null);
  const [day, setDay] = useState(dhakaToday());
  const action = useAction();
  const runs = useList<Run>(
    async (cursor) => {
      const res = await call<Run[]>(
        admin.GET('/api/v1/admin/reconciliation/runs', { params: { query: { size: 20, cursor } } }),
      );
      return {
        ...res,
        data: res.data.filter((r) => r.applicationId === appId || r.applicationId === null),
      };
    },
    [admin, appId],
  );
  const upload = (e: Event) => {
    e.preventDefault();
    if (!file) return;
    void action.run(async () => {
      const csv = await file.text();
      const res = await call<ImportResult>(
        admin.POST('/api/v1/admin/settlements/import', {
          params: { query: { applicationId: appId, mode } },
          body: { gateway, csv },
        }),
      );
      setImported(res.data);
    });
  };
  const run = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const res = await call<Run>(
        admin.POST('/api/v1/admin/reconciliation/runs', {
          params: { query: { period: day, applicationId: appId, mode } },
        }),
      );
      go(`reconciliation/${res.data.id}`);
    });
  };
  return (
    <Screen title={t('Reconciliation')} allowed={can('reconciliation:run')}>
      <ErrorNote error={action.error ?? runs.error} />
      <form class="form" onSubmit={upload} aria-labelledby="upload-title">
        <h2 id="upload-title">{t('Upload settlement file')}</h2>
        <Select
          label={t('Gateway')}
          value={gateway}
          onChange={(e) => setGateway(e.currentTarget.value)}
          options={['sandbox', 'sslcommerz', 'bkash'].map((g) => [g, g] as [string, string])}
        />
        <Field
          label={t('Settlement CSV file')}
          type="file"
          accept=".csv,text/csv"
          required
          onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)}
        />
        <button type="submit" class="primary" disabled={action.busy}>
          {t('Import')}
        </button>
        {imported ? (
          <p role="status" class="ok">
            {t('Imported')}: {num(imported.imported, lang)} · {t('Duplicates')}:{' '}
            {num(imported.duplicates, lang)} · {t('Rejected')}:{' '}
            {num((imported.rejected as unknown[]).length, lang)}
          </p>
        ) : null}
      </form>
      <form class="form" onSubmit={run} aria-labelledby="run-title">
        <h2 id="run-title">{t('Run a day')}</h2>
        <Field
          label={t('Day')}
          type="date"
          required
          value={day}
          onInput={(e) => setDay(e.currentTarget.value)}
        />
        <button type="submit" class="primary" disabled={action.busy}>
          {t('Run')}
        </button>
      </form>
      <Table
        caption={t('Runs')}
        rows={runs.rows}
        loading={runs.loading}
        columns={[
          { label: '#', cell: (r) => <a href={`#/reconciliation/${r.id}`}>{r.id}</a> },
          { label: t('Day'), cell: (r) => date(r.period, lang) },
          { label: t('Mode'), cell: (r) => valueLabel(r.mode, lang) },
          // A FAILED run (the nightly job could not complete it) counts nothing: its reason says why.
          { label: t('Status'), cell: (r) => <Status value={r.status} /> },
          { label: t('Failure reason'), cell: (r) => r.failureReason ?? '' },
          { label: t('Matched'), num: true, cell: (r) => num(r.matched, lang) },
          {
            label: t('Exceptions'),
            num: true,
            cell: (r) => num(r.amountMismatch + r.missingInternal + r.missingInSettlement, lang),
          },
          { label: t('Created'), cell: (r) => dateTime(r.createdAt, lang) },
        ]}
      />
      <Pager list={runs} />
    </Screen>
  );
}

function RunView({ id }: { id: number }) {
  const { t, lang, admin, can } = useCtx();
  const [run, setRun] = useState<Run | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    call<Run>(admin.GET('/api/v1/admin/reconciliation/runs/{id}', { params: { path: { id } } }))
      .then((r) => setRun(r.data))
      .catch(setError);
  }, [id, admin]);
  const items = useList<Item>(
    (cursor) =>
      call<Item[]>(
        admin.GET('/api/v1/admin/reconciliation/runs/{id}/items', {
          params: { path: { id }, query: { size: 50, cursor } },
        }),
      ),
    [id, admin],
  );
  return (
    <Screen title={`${t('Runs')} #${id}`} allowed={can('reconciliation:run')}>
      <p>
        <a href="#/reconciliation">{t('Back')}</a>
      </p>
      <ErrorNote error={error ?? items.error} />
      {run ? (
        <dl class="facts">
          <dt>{t('Day')}</dt>
          <dd>{date(run.period, lang)}</dd>
          <dt>{t('Status')}</dt>
          <dd>
            <Status value={run.status} />
          </dd>
          {run.failureReason ? (
            <>
              <dt>{t('Failure reason')}</dt>
              <dd>{run.failureReason}</dd>
            </>
          ) : null}
          <dt>{t('Matched')}</dt>
          <dd>{num(run.matched, lang)}</dd>
          <dt>{valueLabel('amountMismatch', lang)}</dt>
          <dd>{num(run.amountMismatch, lang)}</dd>
          <dt>{valueLabel('missingInternal', lang)}</dt>
          <dd>{num(run.missingInternal, lang)}</dd>
          <dt>{valueLabel('missingInSettlement', lang)}</dt>
          <dd>{num(run.missingInSettlement, lang)}</dd>
          <dt>{valueLabel('deferred', lang)}</dt>
          <dd>{num(run.deferred, lang)}</dd>
        </dl>
      ) : null}
      <Table
        caption={t('Exceptions')}
        rows={items.rows}
        loading={items.loading}
        columns={[
          { label: t('Class'), cell: (i) => valueLabel(i.class, lang) },
          { label: t('Gateway'), cell: (i) => i.gateway ?? '' },
          { label: t('Gateway transaction id'), cell: (i) => <code>{i.gatewayTxnId ?? ''}</code> },
          {
            label: t('Payment'),
            cell: (i) =>
              i.paymentId ? <a href={`#/payments/${i.paymentId}`}>{`#${i.paymentId}`}</a> : '—',
          },
          { label: t('Amount in Joma'), num: true, cell: (i) => taka(i.internalAmountMinor, lang) },
          {
            label: t('Amount settled'),
            num: true,
            cell: (i) => taka(i.settlementAmountMinor, lang),
          },
        ]}
      />
      <Pager list={items} />
    </Screen>
  );
}
