import { useEffect, useState } from 'preact/hooks';

import type { components } from '../../../clients/typescript/src/generated/schema';
import { call } from '../api';
import { useCtx } from '../context';
import { dateTime, parseTaka, taka } from '../format';
import { ErrorNote, Field, Ok, OneTimeSecret, Screen, Select, Table, useAction } from '../ui';

type App = components['schemas']['AppDto'];
type GatewayStatus = components['schemas']['GatewayStatusDto'];
type Issued = components['schemas']['IssuedCredentialDto'];

/** The application settings of interface.md, gateways per mode, and key rotation (shown once). */
export function SettingsScreen() {
  const { t, lang, admin, appId, mode, can } = useCtx();
  const [app, setApp] = useState<App | null>(null);
  const [gateways, setGateways] = useState<GatewayStatus[]>([]);
  const [f, setF] = useState({
    threshold: '',
    expiry: '',
    logoUrl: '',
    receipts: false,
    dunning: false,
    language: 'bn',
  });
  const [issued, setIssued] = useState<Issued | null>(null);
  const [error, setError] = useState<unknown>(null);
  const action = useAction();
  useEffect(() => {
    const path = { params: { path: { id: appId } } };
    call<App>(admin.GET('/api/v1/admin/apps/{id}', path))
      .then((r) => {
        setApp(r.data);
        setF({
          threshold:
            r.data.refundApprovalThresholdMinor === null
              ? ''
              : String(r.data.refundApprovalThresholdMinor / 100),
          expiry: String(r.data.paymentExpiryMinutes),
          logoUrl: r.data.logoUrl ?? '',
          receipts: r.data.receiptsEnabled,
          dunning: r.data.dunningEnabled,
          language: r.data.defaultLanguage,
        });
      })
      .catch(setError);
    call<GatewayStatus[]>(admin.GET('/api/v1/admin/apps/{id}/gateways', path))
      .then((r) => setGateways(r.data))
      .catch(setError);
  }, [admin, appId]);
  const write = can('apps:write');
  const save = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      const threshold = f.threshold.trim() === '' ? null : parseTaka(f.threshold);
      if (f.threshold.trim() !== '' && threshold === null)
        throw new Error(`${t('Refund approval threshold (taka)')}: 5000`);
      const res = await call<App>(
        admin.PATCH('/api/v1/admin/apps/{id}/settings', {
          params: { path: { id: appId } },
          body: {
            refundApprovalThresholdMinor: threshold as number,
            paymentExpiryMinutes: Number(f.expiry),
            logoUrl: f.logoUrl || null,
            receiptsEnabled: f.receipts,
            dunningEnabled: f.dunning,
            defaultLanguage: f.language,
          } as never,
        }),
      );
      setApp({ ...app!, ...res.data });
    }, t('Saved'));
  };
  const rotate = () =>
    action.run(async () => {
      const res = await call<Issued>(
        admin.POST('/api/v1/admin/apps/{id}/credentials/{mode}/rotate', {
          params: { path: { id: appId, mode } },
        }),
      );
      setIssued(res.data);
    });
  return (
    <Screen title={t('Settings')} allowed={can('apps:read')}>
      <ErrorNote error={error ?? action.error} />
      <Ok text={action.done} />
      {app ? (
        <form class="form" onSubmit={save} aria-labelledby="settings-title">
          <h2 id="settings-title">{t('Application settings')}</h2>
          <fieldset disabled={!write}>
            <Field
              label={t('Refund approval threshold (taka)')}
              inputMode="decimal"
              value={f.threshold}
              hint={
                app.refundApprovalThresholdMinor === null
                  ? undefined
                  : taka(app.refundApprovalThresholdMinor, lang)
              }
              onInput={(e) => setF({ ...f, threshold: e.currentTarget.value })}
            />
            <Field
              label={t('Payment expiry (minutes)')}
              type="number"
              min="1"
              value={f.expiry}
              onInput={(e) => setF({ ...f, expiry: e.currentTarget.value })}
            />
            <Field
              label={t('Logo URL')}
              type="url"
              value={f.logoUrl}
              onInput={(e) => setF({ ...f, logoUrl: e.currentTarget.value })}
            />
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
            <button type="submit" class="primary" disabled={action.busy}>
              {t('Save')}
            </button>
          </fieldset>
        </form>
      ) : null}
      <Table
        caption={t('Gateways')}
        rows={gateways}
        columns={[
          { label: t('Mode'), cell: (g) => g.mode },
          { label: t('Gateway'), cell: (g) => g.gateway },
          { label: t('Configured'), cell: (g) => (g.configured ? t('Yes') : t('No')) },
          { label: t('Default'), cell: (g) => (g.default ? t('Yes') : '') },
          { label: '…', cell: (g) => g.last4 ?? '' },
          {
            label: t('Details'),
            cell: (g) => (g.lastError ? `${g.lastError} (${dateTime(g.lastErrorAt, lang)})` : ''),
          },
        ]}
      />
      <section aria-labelledby="keys-title">
        <h2 id="keys-title">{t('Keys')}</h2>
        {app ? (
          <Table
            caption={t('Keys')}
            rows={app.credentials as { mode: string; apiKey: string }[]}
            columns={[
              { label: t('Mode'), cell: (c) => c.mode },
              { label: t('API key'), cell: (c) => <code>{c.apiKey}</code> },
            ]}
          />
        ) : null}
        {issued ? (
          <>
            <p>
              {t('API key')}: <code>{issued.apiKey}</code>
            </p>
            <OneTimeSecret label={t('API secret')} value={issued.apiSecret} />
          </>
        ) : null}
        {write ? (
          <button type="button" class="danger" disabled={action.busy} onClick={rotate}>
            {t('Rotate keys')} ({mode})
          </button>
        ) : null}
      </section>
    </Screen>
  );
}
