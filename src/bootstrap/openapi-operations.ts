/**
 * What the document says of each operation beyond its decorators: a
 * readable operation id (what generated clients name their methods), a tag
 * (the reference's sections), and the permission an admin needs. One table
 * for every route, so a new route without an entry fails the document's
 * e2e test rather than shipping `SomeController_method` (the service still
 * starts).
 */

type Json = Record<string, unknown>;

/** The reference's sections, in reading order, with the paths each holds. */
export const OPERATION_TAGS: { name: string; description: string; paths: RegExp }[] = [
  {
    name: 'Health',
    description: 'Liveness and readiness for load balancers and orchestrators.',
    paths: /^\/(healthz|readyz)$/,
  },
  {
    name: 'Auth',
    description: 'Admin sign-in, sessions and passwords.',
    paths: /^\/api\/v1\/auth\//,
  },
  {
    name: 'Admin users',
    description: 'Admin users, their permissions and the apps they may act on.',
    paths: /^\/api\/v1\/admin\/users/,
  },
  {
    name: 'Audit',
    description: 'The audit log of admin actions.',
    paths: /^\/api\/v1\/admin\/audit-events/,
  },
  {
    name: 'Apps',
    description: 'Apps, their keys and settings, gateway and SMS credentials.',
    paths: /^\/api\/v1\/admin\/apps/,
  },
  {
    name: 'Invoices',
    description: 'Invoices with a hosted pay page, and the invoice template.',
    paths: /^\/api\/v1\/(admin\/)?invoices/,
  },
  {
    name: 'Refunds',
    description: 'Refunds, their approval above the threshold and gateway checks.',
    paths: /^\/api\/v1\/((admin\/)?refunds|payments\/\{id\}\/refunds)/,
  },
  {
    name: 'Payments',
    description:
      'Payments through the sandbox, SSLCommerz, bKash and Nagad, and gateway notifications.',
    paths: /^\/api\/v1\/((admin\/)?payments|customers\/\{externalId\}\/payments|gateways\/)/,
  },
  {
    name: 'Products and prices',
    description: 'The catalog: products, their prices and the benefits they grant.',
    paths: /^\/api\/v1\/(admin\/)?(products|benefits)/,
  },
  {
    name: 'Purchases',
    description: 'One-time purchases and subscriptions started from a price.',
    paths: /^\/api\/v1\/purchases/,
  },
  {
    name: 'Subscriptions',
    description: 'Subscriptions: pause, resume, cancel.',
    paths: /^\/api\/v1\/(admin\/)?subscriptions/,
  },
  {
    name: 'Customers',
    description: 'Customers: the list, and one customer with their records.',
    paths: /^\/api\/v1\/customers(\/\{reference\})?$/,
  },
  {
    name: 'Entitlements',
    description: 'Who holds which benefit, right now.',
    paths: /^\/api\/v1\/customers\/\{externalId\}\/entitlements/,
  },
  {
    name: 'Webhooks',
    description: 'Webhook endpoints, deliveries, re-sends and the event log.',
    paths: /^\/api\/v1\/(webhook-endpoints|events|admin\/webhook-)/,
  },
  {
    name: 'Notifications',
    description: 'Messages to payers by email and SMS.',
    paths: /^\/api\/v1\/notifications/,
  },
  {
    name: 'Ledger and reconciliation',
    description: 'Ledger balances, settlement imports and reconciliation runs.',
    paths: /^\/api\/v1\/admin\/(ledger|settlements|reconciliation)/,
  },
  {
    name: 'Reports',
    description: 'Collections by day.',
    paths: /^\/api\/v1\/reports\//,
  },
  {
    name: 'Test helpers',
    description: 'TEST mode only: drive the sandbox and subscription time.',
    paths: /^\/api\/v1\/test-helpers\//,
  },
];

/** Readable, stable operation ids (verb first, as generated clients name methods). */
export const OPERATION_IDS: Record<string, string> = {
  'GET /healthz': 'getHealth',
  'GET /readyz': 'getReadiness',
  'POST /api/v1/auth/login': 'login',
  'POST /api/v1/auth/password': 'changePassword',
  'GET /api/v1/auth/me': 'getCurrentAdmin',
  'POST /api/v1/auth/logout': 'logout',
  'GET /api/v1/admin/users': 'listAdminUsers',
  'POST /api/v1/admin/users': 'createAdminUser',
  'GET /api/v1/admin/users/{id}': 'getAdminUser',
  'PATCH /api/v1/admin/users/{id}': 'updateAdminUser',
  'POST /api/v1/admin/users/{id}/password': 'setAdminUserPassword',
  'GET /api/v1/admin/audit-events': 'listAuditEvents',
  'POST /api/v1/admin/apps': 'createApp',
  'GET /api/v1/admin/apps': 'listApps',
  'GET /api/v1/admin/apps/{id}': 'getApp',
  'PATCH /api/v1/admin/apps/{id}': 'updateApp',
  'PATCH /api/v1/admin/apps/{id}/settings': 'updateAppSettings',
  'POST /api/v1/admin/apps/{id}/credentials/{mode}/rotate': 'rotateAppCredentials',
  'GET /api/v1/admin/apps/{id}/gateways': 'listAppGateways',
  'PATCH /api/v1/admin/apps/{id}/gateways/{gateway}': 'setAppGatewayCredentials',
  'DELETE /api/v1/admin/apps/{id}/gateways/{gateway}': 'removeAppGatewayCredentials',
  'PATCH /api/v1/admin/apps/{id}/sms/sslwireless': 'setAppSmsCredentials',
  'POST /api/v1/benefits': 'createBenefit',
  'GET /api/v1/benefits': 'listBenefits',
  'GET /api/v1/benefits/{id}': 'getBenefit',
  'PATCH /api/v1/benefits/{id}': 'updateBenefit',
  'POST /api/v1/benefits/{id}/activate': 'activateBenefit',
  'POST /api/v1/admin/benefits': 'adminCreateBenefit',
  'POST /api/v1/admin/benefits/{id}/activate': 'adminActivateBenefit',
  'POST /api/v1/products': 'createProduct',
  'GET /api/v1/products': 'listProducts',
  'GET /api/v1/products/{id}': 'getProduct',
  'PATCH /api/v1/products/{id}': 'updateProduct',
  'POST /api/v1/admin/products': 'adminCreateProduct',
  'POST /api/v1/admin/products/{id}/archive': 'archiveProduct',
  'POST /api/v1/admin/products/{id}/benefits': 'attachProductBenefit',
  'POST /api/v1/products/{id}/prices': 'createPrice',
  'POST /api/v1/products/{id}/prices/{priceId}/deactivate': 'deactivatePrice',
  'GET /api/v1/payments': 'listPayments',
  'POST /api/v1/payments': 'createPayment',
  'GET /api/v1/payments/{id}': 'getPayment',
  'POST /api/v1/payments/{id}/cancel': 'cancelPayment',
  'GET /api/v1/customers/{externalId}/payments': 'listCustomerPayments',
  'GET /api/v1/admin/payments': 'searchPayments',
  'POST /api/v1/gateways/{gateway}/ipn': 'receiveGatewayNotification',
  'GET /api/v1/reports/daily-collections': 'listDailyCollections',
  'GET /api/v1/customers/{externalId}/entitlements': 'listEntitlements',
  'GET /api/v1/customers': 'listCustomers',
  'GET /api/v1/customers/{reference}': 'getCustomer',
  'GET /api/v1/subscriptions': 'listSubscriptions',
  'GET /api/v1/subscriptions/{id}': 'getSubscription',
  'POST /api/v1/subscriptions/{id}/pause': 'pauseSubscription',
  'POST /api/v1/subscriptions/{id}/resume': 'resumeSubscription',
  'POST /api/v1/subscriptions/{id}/cancel': 'cancelSubscription',
  'GET /api/v1/admin/subscriptions': 'searchSubscriptions',
  'POST /api/v1/payments/{id}/refunds': 'createRefund',
  'GET /api/v1/payments/{id}/refunds': 'listPaymentRefunds',
  'GET /api/v1/refunds': 'listRefunds',
  'GET /api/v1/refunds/{id}': 'getRefund',
  'GET /api/v1/admin/refunds': 'searchRefunds',
  'POST /api/v1/admin/refunds/{id}/approve': 'approveRefund',
  'POST /api/v1/admin/refunds/{id}/reject': 'rejectRefund',
  'POST /api/v1/admin/refunds/{id}/check': 'checkRefund',
  'POST /api/v1/admin/refunds/{id}/complete': 'completeRefund',
  'GET /api/v1/admin/ledger/balances': 'getLedgerBalances',
  'POST /api/v1/admin/settlements/import': 'importSettlement',
  'POST /api/v1/admin/reconciliation/runs': 'runReconciliation',
  'GET /api/v1/admin/reconciliation/runs': 'listReconciliationRuns',
  'GET /api/v1/admin/reconciliation/runs/{id}': 'getReconciliationRun',
  'GET /api/v1/admin/reconciliation/runs/{id}/items': 'listReconciliationItems',
  'POST /api/v1/invoices': 'createInvoice',
  'GET /api/v1/invoices': 'listInvoices',
  'GET /api/v1/invoices/template': 'getInvoiceTemplate',
  'PUT /api/v1/invoices/template': 'putInvoiceTemplate',
  'GET /api/v1/invoices/{id}': 'getInvoice',
  'POST /api/v1/invoices/{id}/void': 'voidInvoice',
  'GET /api/v1/admin/invoices': 'searchInvoices',
  'POST /api/v1/purchases': 'createPurchase',
  'POST /api/v1/test-helpers/payments/{id}/settle': 'testSettlePayment',
  'POST /api/v1/test-helpers/payments/{id}/expire': 'testExpirePayment',
  'POST /api/v1/test-helpers/subscriptions/{id}/advance': 'testAdvanceSubscription',
  'POST /api/v1/webhook-endpoints': 'createWebhookEndpoint',
  'GET /api/v1/webhook-endpoints': 'listWebhookEndpoints',
  'GET /api/v1/webhook-endpoints/{id}': 'getWebhookEndpoint',
  'PATCH /api/v1/webhook-endpoints/{id}': 'updateWebhookEndpoint',
  'DELETE /api/v1/webhook-endpoints/{id}': 'deleteWebhookEndpoint',
  'POST /api/v1/webhook-endpoints/{id}/rotate-secret': 'rotateWebhookEndpointSecret',
  'POST /api/v1/webhook-endpoints/{id}/test': 'sendWebhookTestEvent',
  'GET /api/v1/webhook-endpoints/{id}/deliveries': 'listWebhookDeliveries',
  'GET /api/v1/webhook-endpoints/{id}/deliveries/{deliveryId}': 'getWebhookDelivery',
  'POST /api/v1/webhook-endpoints/{id}/deliveries/{deliveryId}/resend': 'resendWebhookDelivery',
  'GET /api/v1/events': 'listEvents',
  'GET /api/v1/admin/webhook-deliveries': 'searchWebhookDeliveries',
  'GET /api/v1/admin/webhook-deliveries/{id}': 'adminGetWebhookDelivery',
  'POST /api/v1/admin/webhook-deliveries/{id}/resend': 'adminResendWebhookDelivery',
  'GET /api/v1/admin/webhook-endpoints': 'searchWebhookEndpoints',
  'POST /api/v1/admin/webhook-endpoints/{id}/resend-parked': 'resendParkedDeliveries',
  'GET /api/v1/notifications': 'listNotifications',
  'GET /api/v1/notifications/{id}': 'getNotification',
};

/**
 * Names each operation (id and tag), states the permission on admin
 * operations (`x-permissions`, and a sentence in the description), and
 * lists the tags at the top. A route missing from the tables keeps Nest's
 * id (Controller_method) and gets no tag: the service still starts, and the
 * document's e2e test, which wants readable ids and one tag each, fails.
 */
export function describeOperations(doc: {
  paths: Record<string, Record<string, Json>>;
  tags?: Json[];
}): void {
  const used = new Set<string>();
  for (const [path, ops] of Object.entries(doc.paths))
    for (const [method, op] of Object.entries(ops)) {
      if (!op || typeof op !== 'object' || !('responses' in op)) continue;
      const id = OPERATION_IDS[`${method.toUpperCase()} ${path}`];
      const tag = OPERATION_TAGS.find((t) => t.paths.test(path));
      if (id) op.operationId = id;
      if (tag) {
        op.tags = [tag.name];
        used.add(tag.name);
      }
      permissionsOf(op, method);
    }
  doc.tags = OPERATION_TAGS.filter((t) => used.has(t.name)).map(({ name, description }) => ({
    name,
    description,
  }));
}

function permissionsOf(op: Json, method: string): void {
  const acting = op['x-acting-permissions'] as { read: string; write: string } | undefined;
  delete op['x-acting-permissions'];
  let sentence: string | null = null;
  if (acting) {
    const permission = method === 'get' ? acting.read : acting.write;
    op['x-permissions'] = [permission];
    sentence = `An admin acting on the app (Bearer token with X-App-Id and X-Mode) needs the permission \`${permission}\`.`;
  } else if (Array.isArray(op['x-permissions'])) {
    const perms = op['x-permissions'] as string[];
    // An empty list: no permission (the description says who else may call it).
    if (perms.length)
      sentence = `Requires the permission ${perms.map((p) => `\`${p}\``).join(' and ')} (a super admin has every permission).`;
  }
  if (sentence)
    op.description = op.description ? `${String(op.description)}\n\n${sentence}` : sentence;
}
