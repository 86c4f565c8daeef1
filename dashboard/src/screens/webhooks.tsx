import { useEffect, useState } from 'preact/hooks';

import type { components } from '../../../clients/typescript/src/generated/schema';
import { call } from '../api';
import { useCtx } from '../context';
import { dateTime } from '../format';
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

const events = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

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
  const [types, setTypes] = useState('*');
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
      const res = await call<Endpoint & { secret: string }>(
        app.POST('/api/v1/webhook-endpoints', { body: { url, events: events(types) as never } }),
      );
      setSecret(res.data.secret);
      setUrl('');
      await list.reload();
    });
  };
  const toggle = (ep: Endpoint) =>
    action.run(async () => {
      await call(
        app.PATCH('/api/v1/webhook-endpoints/{id}', {
          params: { path: { id: ep.id } },
          body: { enabled: !ep.enabled },
        }),
      );
      await list.reload();
    }, t('Saved'));
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
        <Field
          label={t('Events (comma separated, * for all)')}
          required
          value={types}
          onInput={(e) => setTypes(e.currentTarget.value)}
        />
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
  const [types, setTypes] = useState('');
  const [error, setError] = useState<unknown>(null);
  const action = useAction();
  useEffect(() => {
    call<Endpoint>(app.GET('/api/v1/webhook-endpoints/{id}', { params: { path: { id } } }))
      .then((r) => {
        setEndpoint(r.data);
        setTypes((r.data.events as string[]).join(', '));
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
            void action.run(
              () =>
                call(
                  app.PATCH('/api/v1/webhook-endpoints/{id}', {
                    params: { path: { id } },
                    body: { events: events(types) as never },
                  }),
                ),
              t('Saved'),
            );
          }}
        >
          <Field
            label={t('Events (comma separated, * for all)')}
            value={types}
            onInput={(e) => setTypes(e.currentTarget.value)}
          />
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

function DeliveryView({ endpointId, deliveryId }: { endpointId: number; deliveryId: number }) {
  const { t, lang, app } = useCtx();
  const [delivery, setDelivery] = useState<DeliveryDetail | null>(null);
  const [error, setError] = useState<unknown>(null);
  const action = useAction();
  const path = { params: { path: { id: endpointId, deliveryId } } };
  const load = () =>
    call<DeliveryDetail>(app.GET('/api/v1/webhook-endpoints/{id}/deliveries/{deliveryId}', path))
      .then((r) => setDelivery(r.data))
      .catch(setError);
  useEffect(() => {
    void load();
  }, [endpointId, deliveryId, app]);
  return (
    <Screen title={`${t('Deliveries')} #${deliveryId}`}>
      <p>
        <a href={`#/webhooks/${endpointId}`}>{t('Back')}</a>
      </p>
      <ErrorNote error={error ?? action.error} />
      <Ok text={action.done} />
      {delivery ? (
        <>
          <dl class="facts">
            <dt>{t('Events')}</dt>
            <dd>{delivery.eventType}</dd>
            <dt>{t('Status')}</dt>
            <dd>
              <Status value={delivery.status} />
            </dd>
          </dl>
          <button
            type="button"
            class="primary"
            disabled={action.busy}
            onClick={() =>
              action.run(async () => {
                await call(
                  app.POST('/api/v1/webhook-endpoints/{id}/deliveries/{deliveryId}/resend', path),
                );
                await load();
              }, t('Done'))
            }
          >
            {t('Re-send')}
          </button>
          <Table
            caption={t('Attempts')}
            rows={delivery.attemptLog as Attempt[]}
            columns={[
              { label: '#', num: true, cell: (a) => a.attemptNumber },
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
