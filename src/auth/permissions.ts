/** The admin permission strings (resource:read|write|approve); a superAdmin passes every check. */
export const PERMISSIONS = [
  'apps:read',
  'apps:write',
  'users:read',
  'users:write',
  'invoices:read',
  'invoices:write',
  'catalog:write',
  'reconciliation:run',
  'refunds:approve',
  'webhooks:operate',
  'audit:read',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export function hasPermissions(
  principal: { superAdmin: boolean; permissions: string[] },
  required: readonly Permission[],
): boolean {
  return principal.superAdmin || required.every((p) => principal.permissions.includes(p));
}
