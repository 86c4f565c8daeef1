import type { components } from '../../../clients/typescript/src/generated/schema';
import { call } from '../api';
import { useCtx } from '../context';
import { dateTime } from '../format';
import { ErrorNote, Pager, Screen, Table, useList } from '../ui';

type AuditEvent = components['schemas']['AuditEventDto'];

export function AuditScreen() {
  const { t, lang, admin, can } = useCtx();
  const list = useList<AuditEvent>(
    (cursor) =>
      call<AuditEvent[]>(
        admin.GET('/api/v1/admin/audit-events', { params: { query: { size: 20, cursor } } }),
      ),
    [admin],
  );
  return (
    <Screen title={t('Audit log')} allowed={can('audit:read')}>
      <ErrorNote error={list.error} />
      <Table
        caption={t('Audit log')}
        rows={list.rows}
        loading={list.loading}
        columns={[
          { label: t('When'), cell: (a) => dateTime(a.createdAt, lang) },
          { label: t('Actor'), cell: (a) => a.actorEmail ?? '—' },
          { label: t('Action'), cell: (a) => <code>{a.action}</code> },
          {
            label: t('Target'),
            cell: (a) => <code>{`${a.targetType} ${a.targetId ?? ''}`}</code>,
          },
        ]}
      />
      <Pager list={list} />
    </Screen>
  );
}
