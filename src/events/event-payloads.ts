import { EVENT_TYPES, type EventType } from './event-catalogue';

/**
 * The `data` of each event type, as JSON Schema: the one source of the
 * event contract. The service checks every event it records against it
 * (EventsService.record), the OpenAPI document publishes it
 * (`components.schemas.WebhookEvent`, a union discriminated by `type`), and
 * the typed client's `WebhookEvent` is generated from that document.
 */

type Schema = Record<string, unknown>;

const int: Schema = { type: 'integer' };
const str: Schema = { type: 'string' };
const bool: Schema = { type: 'boolean' };
const nullable = (s: Schema): Schema => ({ ...s, nullable: true });
const date: Schema = { type: 'string', format: 'date' };
const bdt: Schema = { type: 'string', enum: ['BDT'] };

function object(required: Record<string, Schema>, optional: Record<string, Schema> = {}): Schema {
  return {
    type: 'object',
    required: Object.keys(required).sort(),
    properties: { ...required, ...optional },
  };
}

const status = (values: string[]): Schema => ({ type: 'string', enum: values });

const invoice = (s: string, withPayment: boolean): Schema =>
  object({
    invoice_id: int,
    number: str,
    total_minor: int,
    amount_paid_minor: int,
    amount_due_minor: int,
    currency: bdt,
    customer_reference: str,
    due_date: nullable(date),
    subscription_id: nullable(int),
    price_id: nullable(int),
    status: status([s]),
    ...(withPayment ? { payment_id: int } : {}),
  });

const PAYMENT_STATUSES = ['pending', 'succeeded', 'failed', 'cancelled', 'expired'];
const payment = (s: string, succeeded: boolean): Schema =>
  object({
    payment_id: int,
    previous_status: status(PAYMENT_STATUSES),
    reference: str,
    amount_minor: int,
    excess_minor: int,
    currency: bdt,
    customer_reference: str,
    invoice_id: nullable(int),
    gateway: str,
    gateway_txn_id: nullable(str),
    payment_method: nullable(str),
    metadata: nullable({ type: 'object', additionalProperties: true }),
    status: status([s]),
    ...(succeeded ? { risk_level: status(['NORMAL', 'HIGH']) } : {}),
  });

const refund = (s: string): Schema =>
  object({
    refund_id: int,
    payment_id: int,
    invoice_id: nullable(int),
    previous_status: nullable(status(['pending', 'succeeded', 'failed'])),
    amount_minor: int,
    currency: bdt,
    customer_reference: str,
    reason: nullable(str),
    approval_required: bool,
    gateway_refund_id: nullable(str),
    failure_reason: nullable(str),
    status: status([s]),
  });

const SUBSCRIPTION_STATUSES = [
  'INCOMPLETE',
  'TRIALING',
  'ACTIVE',
  'PAST_DUE',
  'PAUSED',
  'CANCELED',
];
const subscription = (s: string): Schema =>
  object(
    {
      subscription_id: int,
      previous_status: status(SUBSCRIPTION_STATUSES.map((x) => x.toLowerCase())),
      subscription_status: status(SUBSCRIPTION_STATUSES),
      price_id: int,
      product_id: int,
      customer_reference: str,
      amount_minor: int,
      currency: bdt,
      current_period_start: nullable(date),
      next_billing_date: nullable(date),
      trial_end_date: nullable(date),
      cancel_at_period_end: bool,
      status: status([s]),
    },
    { invoice_id: nullable(int), payment_id: nullable(int) },
  );

const entitlement: Schema = { type: 'object', additionalProperties: true };

/** `data` of every event type. */
export const EVENT_DATA_SCHEMAS: Record<EventType, Schema> = {
  'payment.succeeded': payment('succeeded', true),
  'payment.failed': payment('failed', false),
  'payment.cancelled': payment('cancelled', false),
  'payment.expired': payment('expired', false),
  'refund.pending': refund('pending'),
  'refund.succeeded': refund('succeeded'),
  'refund.failed': refund('failed'),
  'invoice.issued': invoice('issued', false),
  'invoice.partially_paid': invoice('partially_paid', true),
  'invoice.paid': invoice('paid', true),
  'invoice.voided': invoice('voided', false),
  'subscription.created': subscription('created'),
  'subscription.activated': subscription('activated'),
  'subscription.trial_will_end': subscription('trial_will_end'),
  'subscription.renewed': subscription('renewed'),
  'subscription.payment_succeeded': subscription('payment_succeeded'),
  'subscription.payment_failed': subscription('payment_failed'),
  'subscription.past_due': subscription('past_due'),
  'subscription.canceled': subscription('canceled'),
  'subscription.paused': subscription('paused'),
  'subscription.resumed': subscription('resumed'),
  'subscription.entitlements_updated': object({
    subscription_id: int,
    customer_reference: str,
    granted: { type: 'array', items: entitlement },
    revoked: { type: 'array', items: entitlement },
    entitlements: { type: 'array', items: entitlement },
  }),
  'webhook_endpoint.test': object({ endpoint_id: int, message: str }),
};

/** Schema name of one event type's envelope in the OpenAPI document. */
export function eventSchemaName(type: EventType): string {
  return `${type
    .split(/[._]/)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('')}Event`;
}

/**
 * The envelope of each type (what a delivery's body is) and their union,
 * for the OpenAPI document's components.
 */
export function webhookEventSchemas(): Record<string, Schema> {
  const out: Record<string, Schema> = {};
  for (const type of EVENT_TYPES) {
    out[eventSchemaName(type)] = {
      type: 'object',
      description: `The body of a \`${type}\` delivery (and an item of GET /events, there in camelCase).`,
      required: ['id', 'type', 'created_at', 'mode', 'app_id', 'schema_version', 'data'],
      properties: {
        id: {
          type: 'integer',
          description: 'Delivery id: the same on every retry of this delivery',
        },
        type: { type: 'string', enum: [type] },
        created_at: { type: 'string', format: 'date-time' },
        mode: { type: 'string', enum: ['TEST', 'LIVE'] },
        app_id: { type: 'integer' },
        schema_version: { type: 'integer', enum: [1] },
        data: EVENT_DATA_SCHEMAS[type],
      },
    };
  }
  out.WebhookEvent = {
    description: 'Any webhook delivery body: one of the event types, told apart by `type`.',
    oneOf: EVENT_TYPES.map((t) => ({ $ref: `#/components/schemas/${eventSchemaName(t)}` })),
    discriminator: {
      propertyName: 'type',
      mapping: Object.fromEntries(
        EVENT_TYPES.map((t) => [t, `#/components/schemas/${eventSchemaName(t)}`]),
      ),
    },
  };
  return out;
}

/**
 * What is wrong with an event's `data` against its schema (required members,
 * JSON types, enums; nested objects one level): empty when it conforms.
 */
export function eventDataProblems(type: EventType, data: Record<string, unknown>): string[] {
  const schema = EVENT_DATA_SCHEMAS[type];
  const problems: string[] = [];
  const properties = schema.properties as Record<string, Schema>;
  for (const key of schema.required as string[])
    if (!(key in data) || data[key] === undefined) problems.push(`${key} is missing`);
  for (const [key, value] of Object.entries(data)) {
    const p = properties[key];
    if (!p) {
      problems.push(`${key} is not in the schema`);
      continue;
    }
    if (value === null) {
      if (!p.nullable) problems.push(`${key} is null`);
      continue;
    }
    const kind = Array.isArray(value)
      ? 'array'
      : Number.isInteger(value)
        ? 'integer'
        : typeof value === 'object'
          ? 'object'
          : typeof value;
    if (kind !== p.type) problems.push(`${key} is ${kind}, not ${String(p.type)}`);
    else if (Array.isArray(p.enum) && !p.enum.includes(value))
      problems.push(`${key} is ${JSON.stringify(value)}, not one of ${JSON.stringify(p.enum)}`);
    else if (p.format === 'date' && !/^\d{4}-\d{2}-\d{2}$/.test(String(value)))
      problems.push(`${key} is ${JSON.stringify(value)}, not a date`);
  }
  return problems;
}
