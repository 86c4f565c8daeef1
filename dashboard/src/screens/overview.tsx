import { useEffect, useState } from 'preact/hooks';

import { call } from '../api';
import { useCtx } from '../context';
import { date, num, taka } from '../format';
import { type ApiDay, type DayFigures, dayFigures, niceTop } from '../overview-figures';
import { ErrorNote, Screen, Table } from '../ui';

const DAYS = 30;

/** Gross, refunded and net of the last `n` days. */
function totals(days: DayFigures[], n: number) {
  return days.slice(-n).reduce(
    (s, d) => ({
      gross: s.gross + d.gross,
      refunded: s.refunded + d.refunded,
      net: s.net + d.net,
    }),
    { gross: 0n, refunded: 0n, net: 0n },
  );
}

/** Taka collected, refunded and net per Dhaka day (GET /reports/daily-collections), and what needs attention. */
export function OverviewScreen() {
  const { t, lang, app, admin, appId, mode, can } = useCtx();
  const [days, setDays] = useState<DayFigures[] | null>(null);
  const [asTable, setAsTable] = useState(false);
  const [counts, setCounts] = useState<Record<string, number | null>>({});
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    void (async () => {
      try {
        const collected = await call<ApiDay[]>(
          app.GET('/api/v1/reports/daily-collections', { params: { query: { days: DAYS } } }),
        );
        setDays(dayFigures(collected.data));
      } catch (e) {
        setError(e);
      }
    })();
    const total = (p: Promise<{ pagination: { totalElements: number } }>) =>
      p.then((r) => r.pagination.totalElements).catch(() => null);
    const one = { size: 1 } as const;
    void (async () => {
      const [issued, partly, pending, pastDue, awaiting, failing] = await Promise.all([
        total(
          call(app.GET('/api/v1/invoices', { params: { query: { ...one, status: 'ISSUED' } } })),
        ),
        total(
          call(
            app.GET('/api/v1/invoices', {
              params: { query: { ...one, status: 'PARTIALLY_PAID' } },
            }),
          ),
        ),
        total(
          call(app.GET('/api/v1/payments', { params: { query: { ...one, status: 'PENDING' } } })),
        ),
        total(
          call(
            app.GET('/api/v1/subscriptions', { params: { query: { ...one, status: 'PAST_DUE' } } }),
          ),
        ),
        can('invoices:read')
          ? total(
              call(
                admin.GET('/api/v1/admin/refunds', {
                  params: {
                    query: { ...one, applicationId: appId, mode, awaitingApproval: 'true' },
                  },
                }),
              ),
            )
          : Promise.resolve(null),
        can('webhooks:operate') ? failingEndpoints() : Promise.resolve(null),
      ]);
      setCounts({
        'Open invoices': issued === null || partly === null ? null : issued + partly,
        'Pending payments': pending,
        'Refunds awaiting approval': awaiting,
        'Past-due subscriptions': pastDue,
        'Failing webhook endpoints': failing,
      });
    })();
    /** Endpoints with a delivery parked or being retried: deliveries that are not getting through. */
    async function failingEndpoints(): Promise<number> {
      const endpoints = await call<{ id: number }[]>(app.GET('/api/v1/webhook-endpoints'));
      let failing = 0;
      for (const e of endpoints.data) {
        for (const status of ['PARKED', 'RETRYING'] as const) {
          const d = await call(
            app.GET('/api/v1/webhook-endpoints/{id}/deliveries', {
              params: { path: { id: e.id }, query: { size: 1, status } },
            }),
          );
          if (d.pagination.totalElements > 0) {
            failing++;
            break;
          }
        }
      }
      return failing;
    }
  }, [app, admin, appId, mode, can]);

  return (
    <Screen title={t('Overview')}>
      <ErrorNote error={error} />
      <dl class="tiles periods">
        {(
          [
            ['Today', 1],
            ['Last 7 days', 7],
            ['Last 30 days', 30],
          ] as const
        ).map(([label, n]) => {
          const s = days ? totals(days, n) : null;
          return (
            <div class="tile">
              <dt>{t(label)}</dt>
              <dd>
                <dl class="figures">
                  <dt>{t('Gross collected')}</dt>
                  <dd class="gross">{s ? taka(s.gross, lang) : '…'}</dd>
                  <dt>{t('Refunded')}</dt>
                  <dd>{s ? taka(s.refunded, lang) : '…'}</dd>
                  <dt>{t('Net')}</dt>
                  <dd>{s ? taka(s.net, lang) : '…'}</dd>
                </dl>
              </dd>
            </div>
          );
        })}
      </dl>
      {days ? <Chart days={days} /> : null}
      {days ? (
        <p>
          <button
            type="button"
            aria-expanded={asTable ? 'true' : 'false'}
            aria-controls="chart-table"
            onClick={() => setAsTable(!asTable)}
          >
            {t('Show as table')}
          </button>
        </p>
      ) : null}
      {days && asTable ? (
        <div id="chart-table">
          <Table
            caption={t('Per day: gross collected, refunded and net')}
            rows={[...days].reverse()}
            columns={[
              { label: t('Day'), cell: (d) => date(d.date, lang) },
              { label: t('Gross collected'), num: true, cell: (d) => taka(d.gross, lang) },
              { label: t('Refunded'), num: true, cell: (d) => taka(d.refunded, lang) },
              { label: t('Net'), num: true, cell: (d) => taka(d.net, lang) },
            ]}
          />
        </div>
      ) : null}
      <dl class="tiles">
        {Object.entries(counts).map(([label, n]) => (
          <div class="tile">
            <dt>{t(label)}</dt>
            <dd>{n === null ? '—' : num(n, lang)}</dd>
          </div>
        ))}
      </dl>
    </Screen>
  );
}

/**
 * The 30 days as bars: gross collected, with the day's refunds drawn over
 * it. Both axes are named and the amount axis has its scale; each bar's
 * tooltip names its day and figures; `Show as table` gives the same figures.
 */
function Chart({ days }: { days: DayFigures[] }) {
  const { t, lang } = useCtx();
  const max = days.reduce((m, d) => (d.gross > m ? d.gross : m), 0n);
  // A scale top that reads well: the largest day rounded up to 1, 2 or 5 x 10^k taka.
  const top = niceTop(max);
  const h = (v: bigint) => (top === 0n ? 0 : Number((v * 1000n) / top) / 10);
  const describe = (d: DayFigures) =>
    `${date(d.date, lang)}: ${t('Gross collected')} ${taka(d.gross, lang)}, ${t('Refunded')} ${taka(d.refunded, lang)}, ${t('Net')} ${taka(d.net, lang)}`;
  const mid = Math.floor(days.length / 2);
  return (
    <figure class="chart" aria-labelledby="chart-title">
      <figcaption id="chart-title">{t('Collected per day, last 30 days')}</figcaption>
      <p class="legend">
        <span class="key key-gross" aria-hidden="true" /> {t('Gross collected')}{' '}
        <span class="key key-refunded" aria-hidden="true" /> {t('Refunded')}
      </p>
      <div class="plot">
        <p class="y-title">{t('Taka per day')}</p>
        <ol class="y-scale" aria-label={t('Taka per day')}>
          <li>{taka(top, lang)}</li>
          <li>{taka(top / 2n, lang)}</li>
          <li>{taka(0, lang)}</li>
        </ol>
        <svg
          viewBox={`0 0 ${days.length * 10} 100`}
          preserveAspectRatio="none"
          role="img"
          aria-labelledby="chart-title chart-desc"
        >
          <desc id="chart-desc">
            {`${t('Day (Asia/Dhaka)')} ${date(days[0].date, lang)} – ${date(days[days.length - 1].date, lang)}; ${t('Taka per day')} ${taka(0, lang)} – ${taka(top, lang)}`}
          </desc>
          <line x1="0" y1="50" x2={days.length * 10} y2="50" class="grid" />
          {days.map((d, i) => (
            <g>
              <title>{describe(d)}</title>
              <rect x={i * 10 + 1} y={100 - h(d.gross)} width="8" height={h(d.gross)} class="bar" />
              <rect
                x={i * 10 + 3}
                y={100 - h(d.refunded)}
                width="4"
                height={h(d.refunded)}
                class="bar-refunded"
              />
            </g>
          ))}
        </svg>
        <p class="axis">
          <span>{date(days[0].date, lang)}</span>
          <span class="axis-mid">{date(days[mid].date, lang)}</span>
          <span>{date(days[days.length - 1].date, lang)}</span>
        </p>
        <p class="x-title">{t('Day (Asia/Dhaka)')}</p>
      </div>
    </figure>
  );
}
