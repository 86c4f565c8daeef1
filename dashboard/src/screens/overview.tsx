import { useEffect, useState } from 'preact/hooks';

import { call } from '../api';
import { useCtx } from '../context';
import { date, num, taka } from '../format';
import { ErrorNote, Screen } from '../ui';

interface Day {
  date: string;
  collectedMinor: number;
  payments: number;
}

/** Taka collected per Dhaka day (GET /reports/daily-collections) and what needs attention. */
export function OverviewScreen() {
  const { t, lang, app, admin, appId, mode, can } = useCtx();
  const [days, setDays] = useState<Day[] | null>(null);
  const [counts, setCounts] = useState<Record<string, number | null>>({});
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    call<Day[]>(app.GET('/api/v1/reports/daily-collections', { params: { query: { days: 30 } } }))
      .then((r) => setDays(r.data))
      .catch(setError);
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

  // Each day is at most 2^53 - 1 poisha; their sum may not be: added as bigints.
  const sum = (n: number) =>
    (days ?? []).slice(-n).reduce((s, d) => s + BigInt(d.collectedMinor), 0n);
  const max = Math.max(1, ...(days ?? []).map((d) => d.collectedMinor));
  return (
    <Screen title={t('Overview')}>
      <ErrorNote error={error} />
      <dl class="tiles">
        {[
          ['Today', 1],
          ['Last 7 days', 7],
          ['Last 30 days', 30],
        ].map(([label, n]) => (
          <div class="tile">
            <dt>{t(label as string)}</dt>
            <dd>{days ? taka(sum(n as number), lang) : '…'}</dd>
          </div>
        ))}
      </dl>
      <figure class="chart">
        <figcaption id="chart-title">{t('Collected per day, last 30 days')}</figcaption>
        {days ? (
          <svg
            viewBox={`0 0 ${days.length * 10} 100`}
            preserveAspectRatio="none"
            role="img"
            aria-labelledby="chart-title"
          >
            {days.map((d, i) => {
              const h = Math.round((d.collectedMinor / max) * 96);
              return (
                <rect x={i * 10 + 1} y={100 - h} width="8" height={h} class="bar">
                  <title>{`${date(d.date, lang)}: ${taka(d.collectedMinor, lang)}`}</title>
                </rect>
              );
            })}
          </svg>
        ) : null}
        {days ? (
          <p class="axis">
            <span>{date(days[0].date, lang)}</span>
            <span>{date(days[days.length - 1].date, lang)}</span>
          </p>
        ) : null}
      </figure>
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
