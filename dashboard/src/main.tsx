import './styles.css';

import { render } from 'preact';
import { useEffect, useMemo, useState } from 'preact/hooks';

import { adminApi, appApi, call, type Mode, whenSignedOut } from './api';
import { loadAllApps } from './apps-list';
import { type Ctx, DashboardContext } from './context';
import { detectLang, type Lang, pickLang, translator } from './i18n';
import { AppsScreen } from './screens/apps';
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
import { valueLabel } from './values';

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
/** Not about the picked app: shown without one (an instance with no app yet). */
const APPLESS = ['apps', 'users', 'audit'];
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
  return (
    <>
      <SkipLink t={t} />
      {session ? (
        <Shell session={session} lang={lang} t={t} onLang={onLang} onSignOut={signedIn} />
      ) : (
        <SignIn t={t} lang={lang} onLang={onLang} onSignedIn={signedIn} />
      )}
    </>
  );
}

/**
 * The page's first focusable element (decisions section 20): moves the focus
 * to the content (`#content`, the `main` element) without touching the
 * location hash, which holds the route.
 */
function SkipLink({ t }: { t: (s: string) => string }) {
  return (
    <a
      class="skip"
      href="#content"
      onClick={(e) => {
        e.preventDefault();
        const main = document.getElementById('content');
        main?.focus();
        main?.scrollIntoView();
      }}
    >
      {t('Skip to content')}
    </a>
  );
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
  // Below 45rem the navigation folds behind `Menu`, closed again on every move.
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [route.join('/')]);
  const admin = useMemo(() => adminApi(session.token), [session.token]);
  const [apps, setApps] = useState<AppChoice[] | null>(null);
  const [appId, setAppId] = useState<number>(Number(sessionStorage.getItem('joma.dashboard.app')));
  const [mode, setMode] = useState<Mode>(
    sessionStorage.getItem('joma.dashboard.mode') === 'LIVE' ? 'LIVE' : 'TEST',
  );
  /** Every app the user may see (paged through, however many), into the App picker. */
  const loadApps = async (pick?: number) => {
    let list: AppChoice[];
    if (can(session, 'apps:read')) {
      list = (await loadAllApps(admin)).map((a) => ({ id: a.id, name: a.name }));
    } else {
      list = (session.appIds ?? []).map((id) => ({ id, name: `#${id}` }));
    }
    setApps(list);
    if (pick !== undefined && list.some((a) => a.id === pick)) choose(pick);
    else if (!list.some((a) => a.id === appId) && list.length > 0) choose(list[0].id);
    // An instance with no app: a user who may create one goes straight to `Create app`.
    if (list.length === 0 && can(session, 'apps:write') && session.appIds === null)
      location.hash = '#/apps';
  };
  useEffect(() => {
    loadApps().catch(() => setApps([]));
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
  const name = route[0] ?? 'overview';
  const screens = [
    ...SCREENS,
    ...(can(session, 'apps:read') ? ([['apps', 'Apps', AppsScreen]] as const) : []),
    ...ADMIN_SCREENS.filter(([, , , perm]) => can(session, perm) && session.appIds === null),
  ];
  const found = screens.find(([key]) => key === name) ?? screens[0];
  const appless = APPLESS.includes(found[0]);
  const ctx: Ctx | null =
    current || (appless && apps !== null)
      ? {
          session,
          lang,
          t,
          appId: current?.id ?? 0,
          appName: current?.name ?? '',
          mode,
          app: appApi(session.token, current?.id ?? 0, mode),
          admin,
          can: (p) => can(session, p),
          go: (path) => {
            location.hash = `#/${path}`;
          },
          reloadApps: loadApps,
        }
      : null;
  const View = found[2];
  return (
    <div class={`shell mode-${mode.toLowerCase()}`}>
      <header class="top">
        <p class="brand">{t('Joma dashboard')}</p>
        <button
          type="button"
          class="menu-button"
          aria-expanded={menuOpen ? 'true' : 'false'}
          aria-controls="sections"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          {t('Menu')}
        </button>
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
          <fieldset
            class={`mode mode-${mode.toLowerCase()}`}
            role="radiogroup"
            aria-label={t('Mode')}
          >
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
                {valueLabel(m, lang)}
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
      <nav id="sections" aria-label={t('Sections')} class={`sections${menuOpen ? ' open' : ''}`}>
        <p class="who who-menu">{session.email}</p>
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
      <main id="content" tabIndex={-1}>
        <p class={`mode-banner mode-${mode.toLowerCase()}`}>
          {current ? `${current.name} · ${valueLabel(mode, lang)} · ` : ''}
          {t('Amounts in taka; dates and times in Asia/Dhaka.')}
        </p>
        {ctx ? (
          <DashboardContext.Provider value={ctx}>
            <View
              key={appless ? found[0] : `${found[0]}-${appId}-${mode}`}
              params={route.slice(1)}
            />
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
