import './admin.css';

import { useEffect, useMemo, useRef, useState } from 'preact/hooks';

import type { components } from '../../../clients/typescript/src/generated/schema';
import { appApi, call, type Mode } from '../api';
import { useCtx } from '../context';
import { dateTime, parseTaka, taka } from '../format';
import {
  ErrorNote,
  Field,
  Ok,
  OneTimeSecret,
  Pager,
  Screen,
  Select,
  Status,
  Table,
  useAction,
  useList,
} from '../ui';
import { valueLabel } from '../values';

type App = components['schemas']['AppDto'];
type AppSummary = components['schemas']['AppSettingsDto'];
type CreatedApp = components['schemas']['CreatedAppDto'];
type Issued = components['schemas']['IssuedCredentialDto'];
type GatewayStatus = components['schemas']['GatewayStatusDto'];
type Template = components['schemas']['InvoiceTemplateDto'];

/**
 * The gateways' credential forms, each field labelled as the gateway names it
 * (decisions 19 and 20) and sent under the API's field name.
 */
const GATEWAY_FORMS: Record<string, { title: string; fields: [string, string, boolean][] }> = {
  sslcommerz: {
    title: 'SSLCommerz',
    fields: [
      ['storeId', 'Store ID', false],
      ['storePassword', 'Store Password', true],
    ],
  },
  bkash: {
    title: 'bKash',
    fields: [
      ['appKey', 'App key', false],
      ['appSecret', 'App secret', true],
      ['username', 'Username', false],
      ['password', 'Password', true],
    ],
  },
  nagad: {
    title: 'Nagad',
    fields: [
      ['merchantId', 'Merchant ID', false],
      ['merchantNumber', 'Merchant number', false],
      ['merchantPrivateKey', 'Merchant private key', true],
      ['nagadPublicKey', 'Nagad public key', false],
    ],
  },
};

/**
 * The pair of keys a creation answered, kept in memory only until the app's
 * page has shown them (that page is where the creation leads).
 */
let justCreated: CreatedApp | null = null;

/** Apps: the list, `Create app`, and each app's page (decisions 20). */
export function AppsScreen({ params }: { params: string[] }) {
  return params[0] ? <AppPage id={Number(params[0])} /> : <AppList />;
}

function AppList() {
  const { t, lang, admin, can, session, go, reloadApps } = useCtx();
  const mayCreate = can('apps:write') && session.appIds === null;
  const [name, setName] = useState('');
  const action = useAction();
  const nameRef = useRef<HTMLInputElement>(null);
  const list = useList<AppSummary>(
    (cursor) =>
      call<AppSummary[]>(
        admin.GET('/api/v1/admin/apps', { params: { query: { size: 20, cursor } } }),
      ),
    [admin],
  );
  // An instance with no app: the page is the way to the first one.
  useEffect(() => {
    if (mayCreate && !list.loading && list.rows.length === 0) nameRef.current?.focus();
  }, [list.loading]);
  const create = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const res = await call<CreatedApp>(admin.POST('/api/v1/admin/apps', { body: { name } }));
      justCreated = res.data;
      setName('');
      await reloadApps(res.data.id);
      go(`apps/${res.data.id}`);
    });
  };
  return (
    <Screen title={t('Apps')} allowed={can('apps:read')}>
      <ErrorNote error={list.error} />
      {mayCreate ? (
        <form class="form" onSubmit={create} aria-labelledby="create-app-title">
          <h2 id="create-app-title">{t('Create app')}</h2>
          {!list.loading && list.rows.length === 0 ? (
            <p>{t('No app yet: create the first one. Its keys are shown once, right after.')}</p>
          ) : null}
          <div class="field">
            <label for="new-app-name">{t('Name')}</label>
            <input
              id="new-app-name"
              ref={nameRef}
              required
              maxLength={200}
              value={name}
              onInput={(e) => setName(e.currentTarget.value)}
            />
          </div>
          <ErrorNote error={action.error} />
          <button type="submit" class="primary" disabled={action.busy}>
            {t('Create app')}
          </button>
        </form>
      ) : null}
      <Table
        caption={t('Apps')}
        rows={list.rows}
        loading={list.loading}
        columns={[
          { label: t('Name'), cell: (a) => <a href={`#/apps/${a.id}`}>{a.name}</a> },
          { label: '#', num: true, cell: (a) => a.id },
          { label: t('Status'), cell: (a) => <Status value={a.status} /> },
          { label: t('Created'), cell: (a) => dateTime(a.createdAt, lang) },
        ]}
      />
      <Pager list={list} />
    </Screen>
  );
}

/** The Settings screen: the picked app's page. */
export function SettingsScreen() {
  const { t, appId } = useCtx();
  return <AppPage id={appId} title={t('Settings')} />;
}

/**
 * One app: its keys (shown once after creation and after `Rotate secret`),
 * settings, and, for the mode picked, gateway credentials, SMS credentials
 * and the pay-page template.
 */
function AppPage({ id, title }: { id: number; title?: string }) {
  const { t, lang, admin, can, mode, session } = useCtx();
  const [app, setApp] = useState<App | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [created] = useState(() => (justCreated?.id === id ? justCreated : null));
  useEffect(() => {
    if (justCreated?.id === id) justCreated = null;
  }, []);
  const load = () =>
    call<App>(admin.GET('/api/v1/admin/apps/{id}', { params: { path: { id } } }))
      .then((r) => setApp(r.data))
      .catch(setError);
  useEffect(() => {
    void load();
  }, [admin, id]);
  const scoped = useMemo(() => appApi(session.token, id, mode), [session.token, id, mode]);
  return (
    <Screen title={title ?? app?.name ?? t('Apps')} allowed={can('apps:read')}>
      {title ? null : (
        <p>
          <a href="#/apps">{t('Back')}</a>
        </p>
      )}
      <ErrorNote error={error} />
      {created ? <CreatedKeys app={created} /> : null}
      {app ? (
        <>
          <dl class="facts">
            <dt>{t('Name')}</dt>
            <dd>{app.name}</dd>
            <dt>#</dt>
            <dd>{app.id}</dd>
            <dt>{t('Status')}</dt>
            <dd>
              <Status value={app.status} />
            </dd>
            <dt>{t('Created')}</dt>
            <dd>{dateTime(app.createdAt, lang)}</dd>
          </dl>
          <Keys app={app} mode={mode} />
          <Gateways appId={id} mode={mode} />
          <SmsCredentials appId={id} mode={mode} />
          {can('invoices:read') ? (
            <PayPageTemplate client={scoped} mode={mode} key={`${id}-${mode}`} />
          ) : null}
          <AppSettings app={app} onSaved={(a) => setApp({ ...app, ...a })} />
        </>
      ) : null}
    </Screen>
  );
}

/** Both pairs, right after creation: the only time their secrets are shown. */
function CreatedKeys({ app }: { app: CreatedApp }) {
  const { t, lang } = useCtx();
  return (
    <section aria-labelledby="created-keys-title" class="created-keys">
      <h2 id="created-keys-title">
        {t('Keys of the new app')} {app.name}
      </h2>
      {(app.credentials as Issued[]).map((c) => (
        <div class="secret-pair">
          <h3>{valueLabel(c.mode, lang)}</h3>
          <Field
            label={`${t('API key')} (${valueLabel(c.mode, lang)})`}
            readOnly
            value={c.apiKey}
            class="mono"
          />
          <OneTimeSecret
            label={`${t('API secret')} (${valueLabel(c.mode, lang)})`}
            value={c.apiSecret}
          />
        </div>
      ))}
    </section>
  );
}

/** The mode's key; `Rotate secret` replaces that mode's secret, shown once. */
function Keys({ app, mode }: { app: App; mode: Mode }) {
  const { t, lang, admin, can } = useCtx();
  const [issued, setIssued] = useState<Issued | null>(null);
  const action = useAction();
  const key = (app.credentials as { mode: string; apiKey: string }[]).find((c) => c.mode === mode);
  const shown = issued?.mode === mode ? issued : null;
  const rotate = () =>
    action.run(async () => {
      const res = await call<Issued>(
        admin.POST('/api/v1/admin/apps/{id}/credentials/{mode}/rotate', {
          params: { path: { id: app.id, mode } },
        }),
      );
      setIssued(res.data);
    });
  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">
        {t('Keys')} ({valueLabel(mode, lang)})
      </h2>
      <dl class="facts">
        <dt>{t('API key')}</dt>
        <dd>
          <code>{shown?.apiKey ?? key?.apiKey ?? '—'}</code>
        </dd>
      </dl>
      <ErrorNote error={action.error} />
      {shown ? (
        <OneTimeSecret
          label={`${t('API secret')} (${valueLabel(mode, lang)})`}
          value={shown.apiSecret}
        />
      ) : null}
      {can('apps:write') ? (
        <p>
          <button
            type="button"
            class="danger"
            disabled={action.busy}
            onClick={rotate}
            aria-describedby="rotate-hint"
          >
            {t('Rotate secret')}
          </button>{' '}
          <small id="rotate-hint" class="hint">
            {t('Replaces the secret of this mode at once; the old one stops working.')}
          </small>
        </p>
      ) : null}
    </section>
  );
}

/** The gateways of the mode: their state, and one credential form per gateway. */
function Gateways({ appId, mode }: { appId: number; mode: Mode }) {
  const { t, lang, admin, can } = useCtx();
  const [gateways, setGateways] = useState<GatewayStatus[]>([]);
  const [error, setError] = useState<unknown>(null);
  const load = () =>
    call<GatewayStatus[]>(
      admin.GET('/api/v1/admin/apps/{id}/gateways', { params: { path: { id: appId } } }),
    )
      .then((r) => setGateways(r.data))
      .catch(setError);
  useEffect(() => {
    void load();
  }, [admin, appId]);
  const ofMode = gateways.filter((g) => g.mode === mode);
  return (
    <section aria-labelledby="gateways-title">
      <h2 id="gateways-title">
        {t('Gateways')} ({valueLabel(mode, lang)})
      </h2>
      <ErrorNote error={error} />
      <Table
        caption={`${t('Gateways')} (${valueLabel(mode, lang)})`}
        rows={ofMode}
        columns={[
          {
            label: t('Gateway'),
            cell: (g) =>
              GATEWAY_FORMS[g.gateway]?.title ??
              (g.gateway === 'sandbox' ? t('Sandbox (TEST only, no credentials)') : g.gateway),
          },
          { label: t('Configured'), cell: (g) => (g.configured ? t('Yes') : t('No')) },
          { label: t('Default'), cell: (g) => (g.default ? t('Yes') : '') },
          { label: t('Account ends in'), cell: (g) => (g.last4 ? <code>…{g.last4}</code> : '') },
          {
            label: t('Last error'),
            cell: (g) => (g.lastError ? `${g.lastError} (${dateTime(g.lastErrorAt, lang)})` : ''),
          },
        ]}
      />
      {can('apps:write')
        ? ofMode
            .filter((g) => GATEWAY_FORMS[g.gateway])
            .map((g) => (
              <GatewayForm
                key={`${g.gateway}-${mode}`}
                appId={appId}
                mode={mode}
                status={g}
                onChanged={load}
              />
            ))
        : null}
    </section>
  );
}

function GatewayForm({
  appId,
  mode,
  status,
  onChanged,
}: {
  appId: number;
  mode: Mode;
  status: GatewayStatus;
  onChanged: () => Promise<unknown>;
}) {
  const { t, admin } = useCtx();
  const spec = GATEWAY_FORMS[status.gateway];
  const blank = () => Object.fromEntries(spec.fields.map(([f]) => [f, '']));
  const [values, setValues] = useState<Record<string, string>>(blank);
  const [makeDefault, setMakeDefault] = useState(status.default);
  const action = useAction();
  const titleId = `gw-${status.gateway}-title`;
  const path = {
    path: { id: appId, gateway: status.gateway as 'sslcommerz' | 'bkash' | 'nagad' },
    query: { mode },
  };
  const save = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      await call(
        admin.PATCH('/api/v1/admin/apps/{id}/gateways/{gateway}', {
          params: path,
          body: { credentials: values, default: makeDefault },
        }),
      );
      setValues(blank());
      await onChanged();
    }, t('Saved: the credentials are stored sealed and are never shown again.'));
  };
  const remove = () =>
    action.run(async () => {
      await call(admin.DELETE('/api/v1/admin/apps/{id}/gateways/{gateway}', { params: path }));
      await onChanged();
    }, t('Removed'));
  return (
    <form class="form" onSubmit={save} aria-labelledby={titleId} autocomplete="off">
      <h3 id={titleId}>{spec.title}</h3>
      <p class="hint">
        {status.configured && status.last4
          ? `${t('Set')} (…${status.last4}). ${t('Saving replaces what is stored.')}`
          : t('Not set.')}
      </p>
      {spec.fields.map(([field, label, secret]) => (
        <Field
          label={t(label)}
          type={secret ? 'password' : 'text'}
          autocomplete={secret ? 'new-password' : 'off'}
          required
          value={values[field]}
          onInput={(e) => setValues({ ...values, [field]: e.currentTarget.value })}
        />
      ))}
      <label class="check">
        <input
          type="checkbox"
          checked={makeDefault}
          onChange={(e) => setMakeDefault(e.currentTarget.checked)}
        />
        {t('Default for new payments')}
      </label>
      <ErrorNote error={action.error} />
      <Ok text={action.done} />
      <span class="actions">
        <button type="submit" class="primary" disabled={action.busy}>
          {t('Save')}
        </button>
        {status.configured ? (
          <button type="button" class="danger" disabled={action.busy} onClick={remove}>
            {t('Remove')}
          </button>
        ) : null}
      </span>
    </form>
  );
}

/** SSL Wireless SMS credentials for the mode (decisions 16): set, sealed, never shown. */
function SmsCredentials({ appId, mode }: { appId: number; mode: Mode }) {
  const { t, lang, admin, can } = useCtx();
  const [apiToken, setApiToken] = useState('');
  const [sid, setSid] = useState('');
  const action = useAction();
  if (!can('apps:write')) return null;
  const save = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      await call(
        admin.PATCH('/api/v1/admin/apps/{id}/sms/sslwireless', {
          params: { path: { id: appId }, query: { mode } },
          body: { apiToken, sid },
        }),
      );
      setApiToken('');
      setSid('');
    }, t('Saved: the credentials are stored sealed and are never shown again.'));
  };
  return (
    <form class="form" onSubmit={save} aria-labelledby="sms-title" autocomplete="off">
      <h2 id="sms-title">
        {t('SMS (SSL Wireless)')} ({valueLabel(mode, lang)})
      </h2>
      <p class="hint">
        {t(
          'Without them, LIVE text messages are skipped; TEST never sends. Saving replaces what is stored.',
        )}
      </p>
      <Field
        label={t('API token')}
        type="password"
        autocomplete="new-password"
        required
        value={apiToken}
        onInput={(e) => setApiToken(e.currentTarget.value)}
      />
      <Field
        label={t('SID')}
        required
        autocomplete="off"
        value={sid}
        onInput={(e) => setSid(e.currentTarget.value)}
      />
      <ErrorNote error={action.error} />
      <Ok text={action.done} />
      <button type="submit" class="primary" disabled={action.busy}>
        {t('Save')}
      </button>
    </form>
  );
}

const TEMPLATE_FIELDS = [
  ['companyName', 'Company name'],
  ['companyAddress', 'Company address'],
  ['contactDetails', 'Contact details'],
  ['footerNote', 'Footer note'],
  ['logoUrl', 'Logo URL'],
  ['accentColor', 'Accent colour'],
] as const;
type TemplateField = (typeof TEMPLATE_FIELDS)[number][0];

/** The pay page's template of the mode (GET/PUT /invoices/template, as the app). */
function PayPageTemplate({ client, mode }: { client: ReturnType<typeof appApi>; mode: Mode }) {
  const { t, lang, can } = useCtx();
  const [f, setF] = useState<Record<TemplateField, string> | null>(null);
  const [error, setError] = useState<unknown>(null);
  const action = useAction();
  useEffect(() => {
    call<Template>(client.GET('/api/v1/invoices/template'))
      .then((r) =>
        setF(
          Object.fromEntries(TEMPLATE_FIELDS.map(([k]) => [k, r.data[k] ?? ''])) as Record<
            TemplateField,
            string
          >,
        ),
      )
      .catch(setError);
  }, [client]);
  const write = can('invoices:write');
  const save = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const body = Object.fromEntries(
        TEMPLATE_FIELDS.map(([k]) => [k, f![k].trim() === '' ? null : f![k].trim()]),
      );
      await call(client.PUT('/api/v1/invoices/template', { body }));
    }, t('Saved'));
  };
  return (
    <form class="form" onSubmit={save} aria-labelledby="template-title">
      <h2 id="template-title">
        {t('Pay page')} ({valueLabel(mode, lang)})
      </h2>
      <p class="hint">
        {t('What payers see on the pay page, the receipt and messages in this mode.')}
      </p>
      <ErrorNote error={error} />
      {f ? (
        <fieldset disabled={!write}>
          {TEMPLATE_FIELDS.map(([k, label]) => (
            <Field
              label={t(label)}
              type={k === 'logoUrl' ? 'url' : 'text'}
              placeholder={k === 'accentColor' ? '#0f766e' : undefined}
              value={f[k]}
              onInput={(e) => setF({ ...f, [k]: e.currentTarget.value })}
            />
          ))}
          <ErrorNote error={action.error} />
          <Ok text={action.done} />
          {write ? (
            <button type="submit" class="primary" disabled={action.busy}>
              {t('Save')}
            </button>
          ) : null}
        </fieldset>
      ) : null}
    </form>
  );
}

const minorText = (n: number | null | undefined) =>
  n === null || n === undefined ? '' : `${Math.trunc(n / 100)}.${String(n % 100).padStart(2, '0')}`;

/** The application settings of interface.md, the name, and suspending the app. */
function AppSettings({ app, onSaved }: { app: App; onSaved: (a: Partial<App>) => void }) {
  const { t, lang, admin, can, reloadApps } = useCtx();
  const initial = () => ({
    name: app.name,
    threshold: minorText(app.refundApprovalThresholdMinor),
    min: minorText(app.minAmountMinor),
    max: minorText(app.maxAmountMinor),
    expiry: String(app.paymentExpiryMinutes),
    allowlist: app.returnUrlAllowlist ?? '',
    success: app.defaultSuccessUrl ?? '',
    fail: app.defaultFailUrl ?? '',
    cancel: app.defaultCancelUrl ?? '',
    logoUrl: app.logoUrl ?? '',
    receipts: app.receiptsEnabled,
    dunning: app.dunningEnabled,
    language: app.defaultLanguage as string,
  });
  const [f, setF] = useState(initial);
  useEffect(() => setF(initial()), [app.id]);
  const action = useAction();
  const status = useAction();
  const write = can('apps:write');
  const amount = (label: string, text: string) => {
    const minor = parseTaka(text);
    if (minor === null)
      throw new Error(`${t(label)}: ${t('an amount in taka, e.g. 5000 or 5000.50')}`);
    return minor;
  };
  const save = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const body = {
        refundApprovalThresholdMinor: amount('Refund approval threshold (taka)', f.threshold),
        minAmountMinor: amount('Minimum amount (taka)', f.min),
        maxAmountMinor: amount('Maximum amount (taka)', f.max),
        paymentExpiryMinutes: Number(f.expiry),
        returnUrlAllowlist: f.allowlist.trim(),
        defaultSuccessUrl: f.success.trim() || null,
        defaultFailUrl: f.fail.trim() || null,
        defaultCancelUrl: f.cancel.trim() || null,
        logoUrl: f.logoUrl.trim() || null,
        receiptsEnabled: f.receipts,
        dunningEnabled: f.dunning,
        defaultLanguage: f.language as 'bn' | 'en',
      };
      let saved: Partial<App> = (
        await call<AppSummary>(
          admin.PATCH('/api/v1/admin/apps/{id}/settings', {
            params: { path: { id: app.id } },
            body,
          }),
        )
      ).data;
      if (f.name.trim() !== app.name) {
        saved = (
          await call<AppSummary>(
            admin.PATCH('/api/v1/admin/apps/{id}', {
              params: { path: { id: app.id } },
              body: { name: f.name.trim() },
            }),
          )
        ).data;
      }
      onSaved(saved);
      // A new name: the App picker shows it.
      if ('name' in saved && saved.name !== app.name) await reloadApps();
    }, t('Saved'));
  };
  const suspended = app.status === 'SUSPENDED';
  const toggle = () =>
    status.run(
      async () => {
        const res = await call<AppSummary>(
          admin.PATCH('/api/v1/admin/apps/{id}', {
            params: { path: { id: app.id } },
            body: { status: suspended ? 'ACTIVE' : 'SUSPENDED' },
          }),
        );
        onSaved(res.data);
      },
      suspended
        ? t('Reactivated: the app is accepted again.')
        : t('Suspended: every call of the app is refused.'),
    );
  const input = (key: keyof typeof f) => ({
    value: f[key] as string,
    onInput: (e: Event) => setF({ ...f, [key]: (e.currentTarget as HTMLInputElement).value }),
  });
  return (
    <>
      <form class="form" onSubmit={save} aria-labelledby="settings-title">
        <h2 id="settings-title">{t('Application settings')}</h2>
        <fieldset disabled={!write}>
          <Field label={t('Name')} required maxLength={200} {...input('name')} />
          <Field
            label={t('Refund approval threshold (taka)')}
            inputMode="decimal"
            hint={taka(app.refundApprovalThresholdMinor, lang)}
            {...input('threshold')}
          />
          <Field
            label={t('Minimum amount (taka)')}
            inputMode="decimal"
            hint={taka(app.minAmountMinor, lang)}
            {...input('min')}
          />
          <Field
            label={t('Maximum amount (taka)')}
            inputMode="decimal"
            hint={taka(app.maxAmountMinor, lang)}
            {...input('max')}
          />
          <Field
            label={t('Payment expiry (minutes)')}
            type="number"
            min="1"
            max="1440"
            {...input('expiry')}
          />
          <Field
            label={t('Return URL allowlist')}
            hint={t('Comma-separated origins; empty: any https URL')}
            {...input('allowlist')}
          />
          <Field label={t('Default success URL')} type="url" {...input('success')} />
          <Field label={t('Default fail URL')} type="url" {...input('fail')} />
          <Field label={t('Default cancel URL')} type="url" {...input('cancel')} />
          <Field label={t('Logo URL')} type="url" {...input('logoUrl')} />
          <label class="check">
            <input
              type="checkbox"
              checked={f.receipts}
              onChange={(e) => setF({ ...f, receipts: e.currentTarget.checked })}
            />
            {t('Send receipts')}
          </label>
          <label class="check">
            <input
              type="checkbox"
              checked={f.dunning}
              onChange={(e) => setF({ ...f, dunning: e.currentTarget.checked })}
            />
            {t('Send dunning reminders')}
          </label>
          <Select
            label={t('Message language')}
            value={f.language}
            onChange={(e) => setF({ ...f, language: e.currentTarget.value })}
            options={[
              ['bn', 'বাংলা'],
              ['en', 'English'],
            ]}
          />
          <ErrorNote error={action.error} />
          <Ok text={action.done} />
          {write ? (
            <button type="submit" class="primary" disabled={action.busy}>
              {t('Save')}
            </button>
          ) : null}
        </fieldset>
      </form>
      {write ? (
        <section aria-labelledby="status-title">
          <h2 id="status-title">{t('Status')}</h2>
          <p class="hint">
            {suspended
              ? t('Suspended: every call of the app is refused.')
              : t(
                  'Suspending refuses every call of the app, in both modes, until it is reactivated.',
                )}
          </p>
          <ErrorNote error={status.error} />
          <Ok text={status.done} />
          <button type="button" class="danger" disabled={status.busy} onClick={toggle}>
            {suspended ? t('Reactivate app') : t('Suspend app')}
          </button>
        </section>
      ) : null}
    </>
  );
}
