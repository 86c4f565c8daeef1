import './styles.css';

import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';

import { adminApi, appApi, call, type Mode, whenSignedOut } from './api';
import { type Ctx, DashboardContext } from './context';
import { detectLang, type Lang, pickLang, translator } from './i18n';
import { AuditScreen } from './screens/audit';
import { CatalogScreen } from './screens/catalog';
import { CustomersScreen } from './screens/customers';
import { InvoicesScreen } from './screens/invoices';
import { LedgerScreen } from './screens/ledger';
import { NotificationsScreen } from './screens/notifications';
import { OverviewScreen } from './screens/overview';
import { PaymentsScreen } from './screens/payments';
import { ReconciliationScreen } from './screens/reconciliation';
import { RefundsScreen } from './screens/refunds';
import { SettingsScreen } from './screens/settings';
import { LangSwitch, SignIn } from './screens/sign-in';
import { SubscriptionsScreen } from './screens/subscriptions';
import { UsersScreen } from './screens/users';
import { WebhooksScreen } from './screens/webhooks';
import { can, loadSession, saveSession, type Session } from './session';

const SCREENS = [
  ['overview', 'Overview', OverviewScreen],
  ['invoices', 'Invoices', InvoicesScreen],
  ['payments', 'Payments', PaymentsScreen],
  ['refunds', 'Refunds', RefundsScreen],
  ['subscriptions', 'Subscriptions', SubscriptionsScreen],
  ['customers', 'Customers', CustomersScreen],
  ['catalog', 'Catalog', CatalogScreen],
  ['webhooks', 'Webhooks', WebhooksScreen],
  ['notifications', 'Notifications', NotificationsScreen],
  ['reconciliation', 'Reconciliation', ReconciliationScreen],
  ['ledger', 'Ledger', LedgerScreen],
  ['settings', 'Settings', SettingsScreen],
] as const;
/** Shown only to those allowed (decisions section 15). */
const ADMIN_SCREENS = [
  ['users', 'Admin users', UsersScreen, 'users:read'],
  ['audit', 'Audit log', AuditScreen, 'audit:read'],
] as const;

/** `#/invoices/12` -> ['invoices', '12']. */
function useRoute(): string[] {
  const read = () => location.hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const on = () => setRoute(read());
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return route;
}

interface AppChoice {
  id: number;
  name: string;
}

function Dashboard() {
  const [lang, setLang] = useState<Lang>(detectLang);
  const [session, setSession] = useState<Session | null>(loadSession);
  const t = useMemo(() => translator(lang), [lang]);
  useEffect(() => {
    document.documentElement.lang = lang;
    document.title = t('Joma dashboard');
  }, [lang, t]);
  useEffect(() => whenSignedOut(() => signedIn(null)), []);
  const onLang = (l: Lang) => {
    pickLang(l);
    setLang(l);
  };
  const signedIn = (s: Session | null) => {
    saveSession(s);
    setSession(s);
  };
  if (!session) return <SignIn t={t} lang={lang} onLang={onLang} onSignedIn={signedIn} />;
  return <Shell session={session} lang={lang} t={t} onLang={onLang} onSignOut={signedIn} />;
}

function Shell({
  session,
  lang,
  t,
  onLang,
  onSignOut,
}: {
  session: Session;
  lang: Lang;
  t: (s: string) => string;
  onLang: (l: Lang) => void;
  onSignOut: (s: null) => void;
}) {
  const route = useRoute();
  const admin = useMemo(() => adminApi(session.token), [session.token]);
  const [apps, setApps] = useState<AppChoice[] | null>(null);
  const [appId, setAppId] = useState<number>(Number(sessionStorage.getItem('joma.dashboard.app')));
  const [mode, setMode] = useState<Mode>(
    sessionStorage.getItem('joma.dashboard.mode') === 'LIVE' ? 'LIVE' : 'TEST',
  );
  useEffect(() => {
    const load = async () => {
      let list: AppChoice[];
      if (can(session, 'apps:read')) {
        const res = await call<AppChoice[]>(
          admin.GET('/api/v1/admin/apps', {
            params: { query: { size: 100, sortBy: 'id', order: 'asc' } },
          }),
        );
        list = res.data.map((a) => ({ id: a.id, name: a.name }));
      } else {
        list = (session.appIds ?? []).map((id) => ({ id, name: `#${id}` }));
      }
      setApps(list);
      if (!list.some((a) => a.id === appId) && list.length > 0) choose(list[0].id);
    };
    load().catch(() => setApps([]));
  }, [admin]);
  const choose = (id: number) => {
    sessionStorage.setItem('joma.dashboard.app', String(id));
    setAppId(id);
  };
  const pickMode = (m: Mode) => {
    sessionStorage.setItem('joma.dashboard.mode', m);
    setMode(m);
  };
  const signOut = async () => {
    await call(admin.POST('/api/v1/auth/logout')).catch(() => undefined);
    location.hash = '';
    onSignOut(null);
  };
  const current = apps?.find((a) => a.id === appId);
  const ctx: Ctx | null = current
    ? {
        session,
        lang,
        t,
        appId: current.id,
        appName: current.name,
        mode,
        app: appApi(session.token, current.id, mode),
        admin,
        can: (p) => can(session, p),
        go: (path) => {
          location.hash = `#/${path}`;
        },
      }
    : null;
  const name = route[0] ?? 'overview';
  const screens = [
    ...SCREENS,
    ...ADMIN_SCREENS.filter(([, , , perm]) => can(session, perm) && session.appIds === null),
  ];
  const found = screens.find(([key]) => key === name) ?? screens[0];
  const View = found[2];
  return (
    <div class={`shell mode-${mode.toLowerCase()}`}>
      <header class="top">
        <p class="brand">{t('Joma dashboard')}</p>
        <div class="pickers">
          <div class="field">
            <label for="app-picker">{t('App')}</label>
            <select
              id="app-picker"
              value={String(appId)}
              onChange={(e) => choose(Number(e.currentTarget.value))}
            >
              {(apps ?? []).map((a) => (
                <option value={String(a.id)}>{a.name}</option>
              ))}
            </select>
          </div>
          <fieldset class="mode" role="radiogroup" aria-label={t('Mode')}>
            <legend>{t('Mode')}</legend>
            {(['TEST', 'LIVE'] as const).map((m) => (
              <label>
                <input
                  type="radio"
                  name="mode"
                  value={m}
                  checked={mode === m}
                  onChange={() => pickMode(m)}
                />
                {m}
              </label>
            ))}
          </fieldset>
          <LangSwitch lang={lang} onLang={onLang} t={t} />
          <p class="who">{session.email}</p>
          <button type="button" onClick={signOut}>
            {t('Sign out')}
          </button>
        </div>
      </header>
      <nav aria-label={t('Sections')} class="sections">
        <ul>
          {screens.map(([key, label]) => (
            <li>
              <a href={`#/${key}`} aria-current={key === found[0] ? 'page' : undefined}>
                {t(label)}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main>
        <p class={`mode-banner mode-${mode.toLowerCase()}`}>
          {current ? `${current.name} · ${mode}` : ''} ·{' '}
          {t('Amounts in taka; dates and times in Asia/Dhaka.')}
        </p>
        {ctx ? (
          <DashboardContext.Provider value={ctx}>
            <View key={`${found[0]}-${appId}-${mode}`} params={route.slice(1)} />
          </DashboardContext.Provider>
        ) : apps === null ? (
          <p>{t('Loading')}</p>
        ) : (
          <p>{t('Pick an app to begin.')}</p>
        )}
      </main>
    </div>
  );
}

render(<Dashboard />, document.getElementById('root')!);
