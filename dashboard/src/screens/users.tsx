import type { components } from '../../../clients/typescript/src/generated/schema';
import { call } from '../api';
import { useCtx } from '../context';
import { dateTime } from '../format';
import { ErrorNote, Pager, Screen, Status, Table, useList } from '../ui';

type User = components['schemas']['AdminUserDto'];

export function UsersScreen() {
  const { t, lang, admin, can } = useCtx();
  const list = useList<User>(
    (cursor) =>
      call<User[]>(admin.GET('/api/v1/admin/users', { params: { query: { size: 20, cursor } } })),
    [admin],
  );
  return (
    <Screen title={t('Admin users')} allowed={can('users:read')}>
      <ErrorNote error={list.error} />
      <Table
        caption={t('Admin users')}
        rows={list.rows}
        loading={list.loading}
        columns={[
          { label: t('Email'), cell: (u) => u.email },
          { label: t('Name'), cell: (u) => u.name },
          { label: t('Status'), cell: (u) => <Status value={u.status} /> },
          {
            label: t('Permissions'),
            cell: (u) => (u.superAdmin ? 'superAdmin' : u.permissions.join(', ') || '—'),
          },
          { label: t('Apps'), cell: (u) => (u.appIds ? u.appIds.join(', ') : t('Every app')) },
          { label: t('When'), cell: (u) => dateTime(u.lastLoginAt, lang) },
        ]}
      />
      <Pager list={list} />
    </Screen>
  );
}
