import { useEffect, useId, useState } from 'preact/hooks';

import type { components } from '../../../clients/typescript/src/generated/schema';
import { call } from '../api';
import { type AppSummary, loadAllApps } from '../apps-list';
import { useCtx } from '../context';
import { dateTime } from '../format';
import { ErrorNote, Field, Ok, Pager, Screen, Status, Table, useAction, useList } from '../ui';

type User = components['schemas']['AdminUserDto'];
type Permission = components['schemas']['CreateAdminUserDto']['permissions'] extends
  (infer P)[] | undefined
  ? P
  : never;

/** Every permission (decisions section 2) with what it lets a user do. */
const PERMISSIONS: [Permission, string][] = [
  ['apps:read', 'See apps, their settings and gateways'],
  ['apps:write', 'Create apps, change settings, keys and credentials'],
  ['users:read', 'See admin users'],
  ['users:write', 'Create and change admin users'],
  ['invoices:read', 'See invoices, payments, refunds, subscriptions, customers'],
  ['invoices:write', 'Create invoices, refund, pause and cancel subscriptions'],
  ['catalog:write', 'Create and change products, prices and benefits'],
  ['reconciliation:run', 'Import settlements and run reconciliation'],
  ['refunds:approve', 'Approve or reject refunds above the threshold'],
  ['webhooks:operate', 'Manage webhook endpoints, see and re-send deliveries'],
  ['audit:read', 'Read the audit log'],
];

export function UsersScreen({ params }: { params: string[] }) {
  return params[0] ? <UserPage id={Number(params[0])} /> : <UserList />;
}

function UserList() {
  const { t, lang, admin, can } = useCtx();
  const list = useList<User>(
    (cursor) =>
      call<User[]>(admin.GET('/api/v1/admin/users', { params: { query: { size: 20, cursor } } })),
    [admin],
  );
  const apps = useApps();
  return (
    <Screen title={t('Admin users')} allowed={can('users:read')}>
      <ErrorNote error={list.error} />
      <Table
        caption={t('Admin users')}
        rows={list.rows}
        loading={list.loading}
        columns={[
          { label: t('Email'), cell: (u) => <a href={`#/users/${u.id}`}>{u.email}</a> },
          { label: t('Name'), cell: (u) => u.name },
          { label: t('Status'), cell: (u) => <Status value={u.status} /> },
          {
            label: t('Permissions'),
            cell: (u) => (u.superAdmin ? t('Super admin') : u.permissions.join(', ') || '—'),
          },
          { label: t('Apps'), cell: (u) => appNames(u.appIds, apps, t) },
          { label: t('Last sign-in'), cell: (u) => dateTime(u.lastLoginAt, lang) },
        ]}
      />
      <Pager list={list} />
      {can('users:write') ? <CreateUser apps={apps} onCreated={() => list.reload()} /> : null}
    </Screen>
  );
}

const appNames = (ids: number[] | null, apps: AppSummary[] | null, t: (s: string) => string) =>
  ids === null
    ? t('Every app')
    : ids.map((id) => apps?.find((a) => a.id === id)?.name ?? `#${id}`).join(', ') || '—';

/** The apps to choose from (names need apps:read; without it, ids are typed). */
function useApps(): AppSummary[] | null {
  const { admin, can } = useCtx();
  const [apps, setApps] = useState<AppSummary[] | null>(null);
  useEffect(() => {
    if (can('apps:read'))
      loadAllApps(admin)
        .then(setApps)
        .catch(() => setApps(null));
  }, [admin]);
  return apps;
}

interface Access {
  permissions: Permission[];
  superAdmin: boolean;
  appIds: number[] | null;
}

/** Permissions (only those the signed-in user holds can be given), super admin, apps. */
function AccessFields({
  value,
  onChange,
  apps,
}: {
  value: Access;
  onChange: (v: Access) => void;
  apps: AppSummary[] | null;
}) {
  const { t, session } = useCtx();
  const id = useId();
  const [typed, setTyped] = useState((value.appIds ?? []).join(', '));
  const holds = (p: string) => session.superAdmin || session.permissions.includes(p as never);
  const toggle = (p: Permission, on: boolean) =>
    onChange({
      ...value,
      permissions: on ? [...value.permissions, p] : value.permissions.filter((x) => x !== p),
    });
  return (
    <>
      {session.superAdmin ? (
        <label class="check">
          <input
            type="checkbox"
            checked={value.superAdmin}
            onChange={(e) =>
              onChange({
                ...value,
                superAdmin: e.currentTarget.checked,
                appIds: e.currentTarget.checked ? null : value.appIds,
              })
            }
          />
          {t('Super admin (all permissions and apps)')}
        </label>
      ) : null}
      {value.superAdmin ? null : (
        <>
          <fieldset class="choices">
            <legend>{t('Permissions')}</legend>
            {PERMISSIONS.map(([p, what], i) => (
              <div class="check">
                <input
                  type="checkbox"
                  id={`${id}-p${i}`}
                  checked={value.permissions.includes(p)}
                  disabled={!holds(p)}
                  aria-describedby={`${id}-d${i}`}
                  onChange={(e) => toggle(p, e.currentTarget.checked)}
                />
                <label for={`${id}-p${i}`}>
                  <code>{p}</code>
                </label>
                <small id={`${id}-d${i}`} class="hint">
                  {t(what)}
                </small>
              </div>
            ))}
          </fieldset>
          {session.appIds === null ? (
            <fieldset class="choices">
              <legend>{t('Apps')}</legend>
              <label class="check">
                <input
                  type="checkbox"
                  checked={value.appIds === null}
                  onChange={(e) =>
                    onChange({ ...value, appIds: e.currentTarget.checked ? null : [] })
                  }
                />
                {t('Every app')}
              </label>
              {value.appIds === null ? null : apps ? (
                apps.map((a) => (
                  <label class="check">
                    <input
                      type="checkbox"
                      checked={value.appIds!.includes(a.id)}
                      onChange={(e) =>
                        onChange({
                          ...value,
                          appIds: e.currentTarget.checked
                            ? [...value.appIds!, a.id]
                            : value.appIds!.filter((x) => x !== a.id),
                        })
                      }
                    />
                    {a.name} (#{a.id})
                  </label>
                ))
              ) : (
                <Field
                  label={t('App ids (comma separated)')}
                  value={typed}
                  onInput={(e) => {
                    setTyped(e.currentTarget.value);
                    onChange({
                      ...value,
                      appIds: e.currentTarget.value
                        .split(',')
                        .map((s) => Number(s.trim()))
                        .filter((n) => Number.isInteger(n) && n > 0),
                    });
                  }}
                />
              )}
            </fieldset>
          ) : null}
        </>
      )}
    </>
  );
}

function CreateUser({ apps, onCreated }: { apps: AppSummary[] | null; onCreated: () => void }) {
  const { t, admin } = useCtx();
  const empty = { email: '', name: '', password: '' };
  const [f, setF] = useState(empty);
  const [access, setAccess] = useState<Access>({
    permissions: [],
    superAdmin: false,
    appIds: null,
  });
  const action = useAction();
  const create = (e: Event) => {
    e.preventDefault();
    void action.run(async () => {
      await call(
        admin.POST('/api/v1/admin/users', {
          body: {
            email: f.email.trim(),
            name: f.name.trim(),
            password: f.password,
            superAdmin: access.superAdmin || undefined,
            permissions: access.superAdmin ? [] : access.permissions,
            appIds: access.superAdmin ? null : access.appIds,
          },
        }),
      );
      setF(empty);
      setAccess({ permissions: [], superAdmin: false, appIds: null });
      onCreated();
    }, t('Created'));
  };
  return (
    <form class="form" onSubmit={create} aria-labelledby="new-user-title" autocomplete="off">
      <h2 id="new-user-title">{t('New admin user')}</h2>
      <Field
        label={t('Email')}
        type="email"
        required
        autocomplete="off"
        value={f.email}
        onInput={(e) => setF({ ...f, email: e.currentTarget.value })}
      />
      <Field
        label={t('Name')}
        required
        value={f.name}
        onInput={(e) => setF({ ...f, name: e.currentTarget.value })}
      />
      <Field
        label={t('Password')}
        type="password"
        autocomplete="new-password"
        required
        minLength={12}
        hint={t('At least 12 characters; give it to the user in person.')}
        value={f.password}
        onInput={(e) => setF({ ...f, password: e.currentTarget.value })}
      />
      <AccessFields value={access} onChange={setAccess} apps={apps} />
      <ErrorNote error={action.error} />
      <Ok text={action.done} />
      <button type="submit" class="primary" disabled={action.busy}>
        {t('Create user')}
      </button>
    </form>
  );
}

/** One admin user: change name, permissions and apps; deactivate or re-enable; set a password. */
function UserPage({ id }: { id: number }) {
  const { t, lang, admin, can, session } = useCtx();
  const [user, setUser] = useState<User | null>(null);
  const [name, setName] = useState('');
  const [access, setAccess] = useState<Access | null>(null);
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const apps = useApps();
  const save = useAction();
  const status = useAction();
  const pw = useAction();
  const show = (u: User) => {
    setUser(u);
    setName(u.name);
    setAccess({
      permissions: u.permissions as Permission[],
      superAdmin: u.superAdmin,
      appIds: u.appIds,
    });
  };
  useEffect(() => {
    call<User>(admin.GET('/api/v1/admin/users/{id}', { params: { path: { id } } }))
      .then((r) => show(r.data))
      .catch(setError);
  }, [admin, id]);
  const patch = async (body: Record<string, unknown>) =>
    show(
      (
        await call<User>(
          admin.PATCH('/api/v1/admin/users/{id}', { params: { path: { id } }, body }),
        )
      ).data,
    );
  const write = can('users:write');
  const self = user?.id === session.userId;
  const disabled = user?.status === 'DISABLED';
  return (
    <Screen
      title={user ? `${user.name} (${user.email})` : t('Admin users')}
      allowed={can('users:read')}
    >
      <p>
        <a href="#/users">{t('Back')}</a>
      </p>
      <ErrorNote error={error} />
      {user && access ? (
        <>
          <dl class="facts">
            <dt>{t('Email')}</dt>
            <dd>{user.email}</dd>
            <dt>{t('Status')}</dt>
            <dd>
              <Status value={user.status} />
            </dd>
            <dt>{t('Apps')}</dt>
            <dd>{appNames(user.appIds, apps, t)}</dd>
            <dt>{t('Last sign-in')}</dt>
            <dd>{dateTime(user.lastLoginAt, lang)}</dd>
            <dt>{t('Created')}</dt>
            <dd>{dateTime(user.createdAt, lang)}</dd>
          </dl>
          {write ? (
            <form
              class="form"
              aria-labelledby="access-title"
              onSubmit={(e) => {
                e.preventDefault();
                void save.run(async () => {
                  const body: Record<string, unknown> = {};
                  if (name.trim() !== user.name) body.name = name.trim();
                  if (session.superAdmin && access.superAdmin !== user.superAdmin)
                    body.superAdmin = access.superAdmin;
                  if (!access.superAdmin) {
                    const same =
                      [...access.permissions].sort().join() === [...user.permissions].sort().join();
                    if (!same) body.permissions = access.permissions;
                    if (
                      session.appIds === null &&
                      JSON.stringify(access.appIds) !== JSON.stringify(user.appIds)
                    )
                      body.appIds = access.appIds;
                  }
                  if (Object.keys(body).length > 0) await patch(body);
                }, t('Saved'));
              }}
            >
              <h2 id="access-title">{t('Name, permissions and apps')}</h2>
              <Field
                label={t('Name')}
                required
                value={name}
                onInput={(e) => setName(e.currentTarget.value)}
              />
              <AccessFields value={access} onChange={setAccess} apps={apps} />
              <ErrorNote error={save.error} />
              <Ok text={save.done} />
              <button type="submit" class="primary" disabled={save.busy}>
                {t('Save')}
              </button>
            </form>
          ) : null}
          {write && !self ? (
            <section aria-labelledby="user-status-title">
              <h2 id="user-status-title">{t('Access')}</h2>
              <p class="hint">
                {disabled
                  ? t('Deactivated: this user cannot sign in.')
                  : t(
                      'Deactivating signs the user out everywhere at once and stops them signing in.',
                    )}
              </p>
              <ErrorNote error={status.error} />
              <Ok text={status.done} />
              <button
                type="button"
                class={disabled ? undefined : 'danger'}
                disabled={status.busy}
                onClick={() =>
                  status.run(
                    () => patch({ status: disabled ? 'ACTIVE' : 'DISABLED' }),
                    disabled
                      ? t('Re-enabled: the user can sign in again.')
                      : t('Deactivated: this user cannot sign in.'),
                  )
                }
              >
                {disabled ? t('Re-enable') : t('Deactivate')}
              </button>
            </section>
          ) : null}
          {session.superAdmin ? (
            <form
              class="form"
              aria-labelledby="password-title"
              autocomplete="off"
              onSubmit={(e) => {
                e.preventDefault();
                void pw.run(async () => {
                  await call(
                    admin.POST('/api/v1/admin/users/{id}/password', {
                      params: { path: { id } },
                      body: { newPassword: password },
                    }),
                  );
                  setPassword('');
                }, t('Password set: the user is signed out everywhere.'));
              }}
            >
              <h2 id="password-title">{t('Set a new password')}</h2>
              <Field
                label={t('New password')}
                type="password"
                autocomplete="new-password"
                required
                minLength={12}
                value={password}
                onInput={(e) => setPassword(e.currentTarget.value)}
              />
              <ErrorNote error={pw.error} />
              <Ok text={pw.done} />
              <button type="submit" disabled={pw.busy}>
                {t('Set password')}
              </button>
            </form>
          ) : null}
        </>
      ) : null}
    </Screen>
  );
}
