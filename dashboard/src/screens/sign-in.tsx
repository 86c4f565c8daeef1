import { useState } from 'preact/hooks';

import { call, publicApi } from '../api';
import type { Lang } from '../i18n';
import type { Session } from '../session';
import { ErrorNote } from '../ui';

/** The sign-in form: an admin user's email and password, through POST /auth/login (its throttles and sessions). */
export function SignIn({
  t,
  lang,
  onLang,
  onSignedIn,
}: {
  t: (s: string) => string;
  lang: Lang;
  onLang: (l: Lang) => void;
  onSignedIn: (s: Session) => void;
}) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const res = await call<Session>(
        publicApi().POST('/api/v1/auth/login', { body: { email, password } }),
      );
      onSignedIn(res.data);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in" id="content" tabIndex={-1}>
      <LangSwitch lang={lang} onLang={onLang} t={t} />
      <h1>{t('Joma dashboard')}</h1>
      <form onSubmit={submit} aria-label={t('Sign in to the dashboard')}>
        <div class="field">
          <label for="email">{t('Email')}</label>
          <input
            id="email"
            type="email"
            autocomplete="username"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="password">{t('Password')}</label>
          <input
            id="password"
            type="password"
            autocomplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </div>
        <ErrorNote error={error} />
        <button type="submit" class="primary" disabled={busy}>
          {t('Sign in')}
        </button>
      </form>
    </main>
  );
}

/** English / বাংলা, as on the pay page. */
export function LangSwitch({
  lang,
  onLang,
  t,
}: {
  lang: Lang;
  onLang: (l: Lang) => void;
  t: (s: string) => string;
}) {
  return (
    <div class="lang" role="group" aria-label={t('Language')}>
      <button type="button" lang="en" aria-pressed={lang === 'en'} onClick={() => onLang('en')}>
        English
      </button>
      <button type="button" lang="bn" aria-pressed={lang === 'bn'} onClick={() => onLang('bn')}>
        বাংলা
      </button>
    </div>
  );
}
