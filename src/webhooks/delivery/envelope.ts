import type { Mode } from '../../common/http/request-context';
import { SCHEMA_VERSION } from '../../events/event-catalogue';

export interface EnvelopeInput {
  deliveryId: number;
  type: string;
  createdAt: Date;
  mode: Mode;
  appId: number;
  data: Record<string, unknown>;
}

/** JSON of a value with every object's keys sorted (so `data` has one spelling). */
export function sortedJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined ? 'null' : sortedJson(v))).join(',')}]`;
  const obj = value as Record<string, unknown>;
  return `{${Object.keys(obj)
    .sort()
    .filter((k) => obj[k] !== undefined)
    .map((k) => `${JSON.stringify(k)}:${sortedJson(obj[k])}`)
    .join(',')}}`;
}

/**
 * The canonical body of one delivery: the envelope keys in the order of the
 * interface's table (id, type, created_at, mode, app_id, schema_version,
 * data), no whitespace, `data` with sorted keys. Built once at fan-out and
 * stored; every attempt and re-send sends these exact bytes.
 */
export function buildEnvelopeBody(e: EnvelopeInput): string {
  return (
    `{"id":${JSON.stringify(e.deliveryId)}` +
    `,"type":${JSON.stringify(e.type)}` +
    `,"created_at":${JSON.stringify(e.createdAt.toISOString())}` +
    `,"mode":${JSON.stringify(e.mode)}` +
    `,"app_id":${JSON.stringify(e.appId)}` +
    `,"schema_version":${SCHEMA_VERSION}` +
    `,"data":${sortedJson(e.data)}}`
  );
}
