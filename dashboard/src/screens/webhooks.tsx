import { useEffect, useId, useRef, useState } from 'preact/hooks';

import type { components } from '../../../clients/typescript/src/generated/schema';
import { call } from '../api';
import { useCtx } from '../context';
import { dateTime, num } from '../format';
import {
  ErrorNote,
  Field,
  Ok,
  OneTimeSecret,
  Pager,
  Screen,
  Status,
  Table,
  useAction,
  useList,
} from '../ui';

type Endpoint = components['schemas']['WebhookEndpointDto'];
type Delivery = components['schemas']['WebhookDeliveryDto'];
type DeliveryDetail = components['schemas']['WebhookDeliveryDetailDto'];
type Attempt = components['schemas']['WebhookAttemptDto'];
type EventChoice = components['schemas']['CreateWebhookEndpointDto']['events'][number];
type EventType = Exclude<EventChoice, '*' | 'webhook_endpoint.test'>;

/**
 * The catalogue's event types, picked rather than typed (decisions 20). The
 * record makes the type check fail when the API documents a type this list
 * lacks (or one it no longer has). `webhook_endpoint.test` reaches an
 * endpoint through `Send test event`, whatever it subscribes to.
 */
const EVENT_TYPES = Object.keys({
  'payment.succeeded': 1,
  'payment.failed': 1,
  'payment.cancelled': 1,
  'payment.expired': 1,
  'refund.pending': 1,
  'refund.succeeded': 1,
  'refund.failed': 1,
  'invoice.issued': 1,
  'invoice.partially_paid': 1,
  'invoice.paid': 1,
  'invoice.voided': 1,
  'subscription.created': 1,
  'subscription.activated': 1,
  'subscription.trial_will_end': 1,
  'subscription.renewed': 1,
  'subscription.payment_succeeded': 1,
  'subscription.payment_failed': 1,
  'subscription.past_due': 1,
  'subscription.canceled': 1,
  'subscription.paused': 1,
  'subscription.resumed': 1,
  'subscription.entitlements_updated': 1,
} satisfies Record<EventType, 1>) as EventType[];

/** `["*"]` (every type, present and future) or some of the catalogue's types. */
function EventPicker({ value, onChange }: { value: string[]; onChange: (v: string[]) => void }) {
  const { t } = useCtx();
  const id = useId();
  const all = value.includes('*');
  const groups = [...new Set(EVENT_TYPES.map((e) => e.split('.')[0]))];
  return (
    <fieldset class="choices events" aria-describedby={`${id}-hint`}>
      <legend>{t('Events')}</legend>
      <small id={`${id}-hint`} class="hint">
        {t('Pick at least one.')}
      </small>
      <label class="check">
        <input
          type="checkbox"
          checked={all}
          onChange={(e) => onChange(e.currentTarget.checked ? ['*'] : [])}
        />
        {t('All events, present and future')}
      </label>
      {all
        ? null
        : groups.map((g) => (
            <div class="event-group">
              {EVENT_TYPES.filter((e) => e.startsWith(`${g}.`)).map((type) => (
                <label class="check">
                  <input
                    type="checkbox"
                    checked={value.includes(type)}
                    onChange={(e) =>
                      onChange(
                        e.currentTarget.checked
                          ? [...value, type]
                          : value.filter((v) => v !== type),
                      )
                    }
                  />
                  <code>{type}</code>
                </label>
              ))}
            </div>
          ))}
    </fieldset>
  );
}

const noEvents = (t: (s: string) => string) => new Error(t('Pick at least one event.'));

export function WebhooksScreen({ params }: { params: string[] }) {
  if (params[0] && params[1] === 'deliveries' && params[2])
    return <DeliveryView endpointId={Number(params[0])} deliveryId={Number(params[2])} />;
  if (params[0]) return <EndpointView id={Number(params[0])} />;
  return <EndpointList />;
}

/** Up to five endpoints per mode: create, enable or disable, rotate the secret (shown once). */
function EndpointList() {
  const { t, lang, app, can, mode } = useCtx();
  const [url, setUrl] = useState('');
  const [types, setTypes] = useState<string[]>(['*']);
  const [secret, setSecret] = useState<string | null>(null);
  const action = useAction();
  const list = useList<Endpoint>(
    (cursor) =>
      call<Endpoint[]>(
        app.GET('/api/v1/webhook-endpoints', { params: { query: { size: 20, cursor } } }),
      ),
    [app],
  );
  const create = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      if (types.length === 0) throw noEvents(t);
      const res = await call<Endpoint & { secret: string }>(
        app.POST('/api/v1/webhook-endpoints', { body: { url, events: types as EventChoice[] } }),
      );
      setSecret(res.data.secret);
      setUrl('');
      await list.reload();
    });
  };
  const toggle = (ep: Endpoint) =>
    action.run(
      async () => {
        await call(
          app.PATCH('/api/v1/webhook-endpoints/{id}', {
            params: { path: { id: ep.id } },
            body: { enabled: !ep.enabled },
          }),
        );
        await list.reload();
      },
      `${ep.enabled ? t('Disabled: it receives nothing until enabled again.') : t('Enabled: it receives events again.')} ${ep.url}`,
    );
  const test = (ep: Endpoint) =>
    action.run(
      () =>
        call(app.POST('/api/v1/webhook-endpoints/{id}/test', { params: { path: { id: ep.id } } })),
      t('Done'),
    );
  const rotate = (ep: Endpoint) =>
    action.run(async () => {
      const res = await call<{ secret: string }>(
        app.POST('/api/v1/webhook-endpoints/{id}/rotate-secret', {
          params: { path: { id: ep.id } },
        }),
      );
      setSecret(res.data.secret);
    });
  return (
    <Screen title={t('Webhooks')} allowed={can('webhooks:operate')}>
      <ErrorNote error={list.error ?? action.error} />
      <Ok text={action.done} />
      {secret ? <OneTimeSecret label={t('Secret')} value={secret} /> : null}
      <Table
        caption={`${t('Endpoints')} (${mode})`}
        rows={list.rows}
        loading={list.loading}
        columns={[
          { label: t('Endpoint URL'), cell: (ep) => <a href={`#/webhooks/${ep.id}`}>{ep.url}</a> },
          { label: t('Events'), cell: (ep) => (ep.events as string[]).join(', ') },
          { label: t('Active'), cell: (ep) => (ep.enabled ? t('Yes') : t('No')) },
          { label: t('Created'), cell: (ep) => dateTime(ep.createdAt, lang) },
          {
            label: t('Action'),
            cell: (ep) => (
              <span class="actions">
                <button
                  type="button"
                  disabled={action.busy}
                  onClick={() => toggle(ep)}
                  aria-label={`${ep.enabled ? t('Disable') : t('Enable')} ${ep.url}`}
                >
                  {ep.enabled ? t('Disable') : t('Enable')}
                </button>
                <button
                  type="button"
                  disabled={action.busy}
                  onClick={() => rotate(ep)}
                  aria-label={`${t('Rotate secret')} ${ep.url}`}
                >
                  {t('Rotate secret')}
                </button>
                <button
                  type="button"
                  disabled={action.busy || !ep.enabled}
                  onClick={() => test(ep)}
                  aria-label={`${t('Send test event')} ${ep.url}`}
                >
                  {t('Send test event')}
                </button>
              </span>
            ),
          },
        ]}
      />
      <Pager list={list} />
      <form class="form" onSubmit={create} aria-labelledby="add-endpoint">
        <h2 id="add-endpoint">{t('Add endpoint')}</h2>
        <Field
          label={t('Endpoint URL')}
          type="url"
          required
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
        <EventPicker value={types} onChange={setTypes} />
        <button type="submit" class="primary" disabled={action.busy}>
          {t('Add endpoint')}
        </button>
      </form>
    </Screen>
  );
}

/** One endpoint: edit its events, its deliveries with their attempts, re-send. */
function EndpointView({ id }: { id: number }) {
  const { t, lang, app, can } = useCtx();
  const [endpoint, setEndpoint] = useState<Endpoint | null>(null);
  const [types, setTypes] = useState<string[]>([]);
  const [error, setError] = useState<unknown>(null);
  const action = useAction();
  useEffect(() => {
    call<Endpoint>(app.GET('/api/v1/webhook-endpoints/{id}', { params: { path: { id } } }))
      .then((r) => {
        setEndpoint(r.data);
        setTypes(r.data.events as string[]);
      })
      .catch(setError);
  }, [id, app]);
  const deliveries = useList<Delivery>(
    (cursor) =>
      call<Delivery[]>(
        app.GET('/api/v1/webhook-endpoints/{id}/deliveries', {
          params: { path: { id }, query: { size: 20, cursor } },
        }),
      ),
    [id, app],
  );
  return (
    <Screen title={endpoint?.url ?? t('Webhooks')} allowed={can('webhooks:operate')}>
      <p>
        <a href="#/webhooks">{t('Back')}</a>
      </p>
      <ErrorNote error={error ?? action.error ?? deliveries.error} />
      <Ok text={action.done} />
      {endpoint ? (
        <form
          class="form"
          onSubmit={(e) => {
            e.preventDefault();
            void action.run(async () => {
              if (types.length === 0) throw noEvents(t);
              await call(
                app.PATCH('/api/v1/webhook-endpoints/{id}', {
                  params: { path: { id } },
                  body: { events: types as EventChoice[] },
                }),
              );
            }, t('Saved'));
          }}
          aria-labelledby="endpoint-events-title"
        >
          <h2 id="endpoint-events-title">{t('Events it receives')}</h2>
          <EventPicker value={types} onChange={setTypes} />
          <button type="submit" disabled={action.busy}>
            {t('Save')}
          </button>
        </form>
      ) : null}
      <Table
        caption={t('Deliveries')}
        rows={deliveries.rows}
        loading={deliveries.loading}
        columns={[
          { label: '#', cell: (d) => <a href={`#/webhooks/${id}/deliveries/${d.id}`}>{d.id}</a> },
          { label: t('Events'), cell: (d) => d.eventType },
          { label: t('Status'), cell: (d) => <Status value={d.status} /> },
          { label: t('Attempts'), num: true, cell: (d) => d.attempts },
          { label: t('Created'), cell: (d) => dateTime(d.createdAt, lang) },
        ]}
      />
      <Pager list={deliveries} />
    </Screen>
  );
}

/**
 * One delivery, titled by what it is (its event, to which endpoint); after
 * `Re-send` the page follows the delivery until the new attempt is listed.
 */
function DeliveryView({ endpointId, deliveryId }: { endpointId: number; deliveryId: number }) {
  const { t, lang, app, can } = useCtx();
  const [delivery, setDelivery] = useState<DeliveryDetail | null>(null);
  const [endpoint, setEndpoint] = useState<Endpoint | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [waiting, setWaiting] = useState(false);
  const action = useAction();
  const alive = useRef(true);
  useEffect(
    () => () => {
      alive.current = false;
    },
    [],
  );
  const path = { params: { path: { id: endpointId, deliveryId } } };
  const fetchIt = async () =>
    (
      await call<DeliveryDetail>(
        app.GET('/api/v1/webhook-endpoints/{id}/deliveries/{deliveryId}', path),
      )
    ).data;
  useEffect(() => {
    fetchIt().then(setDelivery).catch(setError);
    call<Endpoint>(
      app.GET('/api/v1/webhook-endpoints/{id}', { params: { path: { id: endpointId } } }),
    )
      .then((r) => setEndpoint(r.data))
      .catch(() => undefined);
  }, [endpointId, deliveryId, app]);
  /** Re-reads the delivery every second until an attempt beyond `seen` is listed (at most a minute). */
  const follow = async (seen: number) => {
    setWaiting(true);
    try {
      for (let i = 0; i < 60 && alive.current; i++) {
        const d = await fetchIt();
        if (!alive.current) return;
        setDelivery(d);
        const attempts = d.attemptLog as Attempt[];
        if (attempts.length > seen) return;
        await new Promise((r) => setTimeout(r, 1000));
      }
    } finally {
      if (alive.current) setWaiting(false);
    }
  };
  const title = delivery
    ? t('Delivery of {event}').replace('{event}', delivery.eventType)
    : t('Deliveries');
  return (
    <Screen title={title} allowed={can('webhooks:operate')}>
      <p>
        <a href={`#/webhooks/${endpointId}`}>{t('Back')}</a>
      </p>
      <ErrorNote error={error ?? action.error} />
      <Ok text={action.done} />
      {waiting ? (
        <p role="status" class="hint">
          {t('Waiting for the new attempt…')}
        </p>
      ) : null}
      {delivery ? (
        <>
          <dl class="facts">
            <dt>{t('Event')}</dt>
            <dd>
              <code>{delivery.eventType}</code>
            </dd>
            <dt>{t('Endpoint')}</dt>
            <dd>{endpoint?.url ?? `#${endpointId}`}</dd>
            <dt>{t('Delivery id')}</dt>
            <dd>
              <code>{delivery.id}</code>
            </dd>
            <dt>{t('Status')}</dt>
            <dd>
              <Status value={delivery.status} />
            </dd>
            <dt>{t('Attempts')}</dt>
            <dd>{num(delivery.attempts, lang)}</dd>
            {delivery.nextAttemptAt ? (
              <>
                <dt>{t('Next attempt')}</dt>
                <dd>{dateTime(delivery.nextAttemptAt, lang)}</dd>
              </>
            ) : null}
            {delivery.deliveredAt ? (
              <>
                <dt>{t('Delivered')}</dt>
                <dd>{dateTime(delivery.deliveredAt, lang)}</dd>
              </>
            ) : null}
            {delivery.lastError ? (
              <>
                <dt>{t('Last error')}</dt>
                <dd>{delivery.lastError}</dd>
              </>
            ) : null}
            <dt>{t('Created')}</dt>
            <dd>{dateTime(delivery.createdAt, lang)}</dd>
          </dl>
          <button
            type="button"
            class="primary"
            disabled={action.busy || waiting}
            onClick={() => {
              const seen = (delivery.attemptLog as Attempt[]).length;
              void action
                .run(async () => {
                  setDelivery(
                    await call<DeliveryDetail>(
                      app.POST(
                        '/api/v1/webhook-endpoints/{id}/deliveries/{deliveryId}/resend',
                        path,
                      ),
                    ).then(() => fetchIt()),
                  );
                }, t('Re-sent: the new attempt is listed below when it is made.'))
                .then((ok) => (ok ? follow(seen) : undefined));
            }}
          >
            {t('Re-send')}
          </button>
          <Table
            caption={t('Attempts')}
            rows={delivery.attemptLog as Attempt[]}
            columns={[
              { label: '#', num: true, cell: (a) => num(a.attemptNumber, lang) },
              { label: t('When'), cell: (a) => dateTime(a.startedAt, lang) },
              { label: 'HTTP', num: true, cell: (a) => a.statusCode ?? '—' },
              { label: t('Details'), cell: (a) => a.error ?? a.responseExcerpt ?? '' },
            ]}
          />
          <details>
            <summary>JSON</summary>
            <pre class="mono">{delivery.body}</pre>
          </details>
        </>
      ) : null}
    </Screen>
  );
}
