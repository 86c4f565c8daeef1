import type { JomaClient } from '../../clients/typescript/src/client';
import type { components } from '../../clients/typescript/src/generated/schema';
import { call } from './api';

export type AppSummary = components['schemas']['AppSettingsDto'];

/**
 * Every app the signed-in admin may see, however many: pages of 100 through
 * the list's cursors (newest first, the order cursors page in), then sorted
 * by id so the picker's order does not move when an app is added.
 */
export async function loadAllApps(admin: JomaClient): Promise<AppSummary[]> {
  const all: AppSummary[] = [];
  let cursor: string | undefined;
  // 10,000 pages of 100 is far beyond any instance; the bound only stops a loop on a bad cursor.
  for (let i = 0; i < 10_000; i++) {
    const res = await call<AppSummary[]>(
      admin.GET('/api/v1/admin/apps', { params: { query: { size: 100, cursor } } }),
    );
    all.push(...res.data);
    const next = res.pagination.nextCursor ?? undefined;
    if (!next || res.data.length === 0 || next === cursor) break;
    cursor = next;
  }
  const seen = new Set<number>();
  return all.filter((a) => !seen.has(a.id) && seen.add(a.id)).sort((a, b) => a.id - b.id);
}
