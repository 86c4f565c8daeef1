import { Injectable } from '@nestjs/common';
import { Transactional } from '@nestjs-cls/transactional';

import { AuditService } from '../../audit';
import { Clock } from '../../common/clock/clock';
import { DomainEventBus } from '../../common/domain-events';
import { AppError } from '../../common/errors/app-error';
import { ErrorCode } from '../../common/errors/error-code';
import { Page } from '../../common/http/envelope';
import type { PageQuery } from '../../common/http/pagination';
import type { Mode } from '../../common/http/request-context';
import { AppConfig } from '../../config/app-config';
import type { TenantScope } from '../../database/tenant';
import { EventsService } from '../../events';
import { TEST_EVENT } from '../../events/event-catalogue';
import { checkEndpointUrl } from '../security/url-policy';
import { newEndpointSecret, openSecret, sealSecret } from './endpoint-secret';
import { ALL_EVENTS, WebhookEndpoint } from './webhook-endpoint.entity';
import { WebhookEndpointDeleted } from './webhook-endpoint-events';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository';

/** At most this many webhook endpoints per app per mode. */
export const MAX_ENDPOINTS_PER_MODE = 5;

/** Test events allowed per endpoint per minute (decisions 14 as amended). */
export const TEST_EVENTS_PER_MINUTE = 10;

export interface EndpointInput {
  url: string;
  events: string[];
  description?: string;
  enabled?: boolean;
}

export interface EndpointWithSecret {
  endpoint: WebhookEndpoint;
  /** Plaintext, returned this once. */
  secret: string;
}

/** Decrypted secrets kept in memory, by sealed value (cleared when full). */
const OPENED_SECRETS_KEPT = 10_000;

/** Endpoint management for apps (mode from the key) and lookups for operators. */
@Injectable()
export class WebhookEndpointsService {
  private readonly opened = new Map<string, string>();

  constructor(
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly bus: DomainEventBus,
    private readonly clock: Clock,
    private readonly config: AppConfig,
    private readonly audit: AuditService,
    private readonly events: EventsService,
  ) {}

  async create(scope: TenantScope, input: EndpointInput): Promise<EndpointWithSecret> {
    const url = await this.checkUrl(input.url, scope.mode);
    return this.insert(scope, { ...input, url, events: normaliseEvents(input.events) });
  }

  @Transactional()
  private async insert(scope: TenantScope, input: EndpointInput): Promise<EndpointWithSecret> {
    await this.endpoints.lockPartition(scope);
    const count = await this.endpoints.countLive(scope);
    if (count >= MAX_ENDPOINTS_PER_MODE) {
      throw new AppError(
        ErrorCode.WEBHOOK_ENDPOINT_LIMIT_REACHED,
        `An app can have at most ${MAX_ENDPOINTS_PER_MODE} webhook endpoints per mode`,
      );
    }
    const secret = newEndpointSecret();
    const now = this.clock.now();
    const saved = await this.endpoints.insert({
      appId: scope.appId,
      mode: scope.mode,
      url: input.url,
      description: blankToNull(input.description),
      events: input.events,
      enabled: input.enabled ?? true,
      secretCiphertext: sealSecret(this.config.encryptionKey, secret),
      secretRotatedAt: null,
      legacy: false,
      createdAt: now,
      updatedAt: now,
      deletedAt: null,
    });
    await this.audited('webhook_endpoint.created', scope, saved.id, {
      url: input.url,
      events: input.events,
      enabled: input.enabled ?? true,
    });
    return { endpoint: await this.get(scope, saved.id), secret };
  }

  /** An admin's change through the app routes (section 15) is audited; an app key's is not. */
  private audited(
    action: string,
    scope: TenantScope,
    id: number,
    after: Record<string, unknown> = {},
  ): Promise<void> {
    return this.audit.record({
      action,
      targetType: 'webhook_endpoint',
      targetId: id,
      after: { applicationId: scope.appId, mode: scope.mode, ...after },
      adminOnly: true,
    });
  }

  list(scope: TenantScope, query: PageQuery): Promise<Page<WebhookEndpoint>> {
    return this.endpoints.pageIn(scope, query);
  }

  async get(scope: TenantScope, id: number): Promise<WebhookEndpoint> {
    const found = await this.endpoints.liveIn(scope, id);
    if (!found) throw AppError.notFound('Webhook endpoint');
    return found;
  }

  async update(
    scope: TenantScope,
    id: number,
    patch: Partial<EndpointInput>,
  ): Promise<WebhookEndpoint> {
    const url = patch.url === undefined ? undefined : await this.checkUrl(patch.url, scope.mode);
    return this.applyUpdate(scope, id, {
      ...patch,
      url,
      events: patch.events && normaliseEvents(patch.events),
    });
  }

  @Transactional()
  private async applyUpdate(
    scope: TenantScope,
    id: number,
    patch: Partial<EndpointInput>,
  ): Promise<WebhookEndpoint> {
    const endpoint = await this.lock(scope, id);
    const changes: Partial<WebhookEndpoint> = { updatedAt: this.clock.now() };
    if (patch.url !== undefined) changes.url = patch.url;
    if (patch.events !== undefined) changes.events = patch.events;
    if (patch.description !== undefined) changes.description = blankToNull(patch.description);
    if (patch.enabled !== undefined) changes.enabled = patch.enabled;
    await this.endpoints.update(endpoint.id, changes);
    const { updatedAt: _, ...changed } = changes;
    await this.audited('webhook_endpoint.updated', scope, id, changed);
    return this.get(scope, id);
  }

  /** Removes the endpoint from use; its deliveries and attempts stay for the record. */
  @Transactional()
  async remove(scope: TenantScope, id: number): Promise<void> {
    const endpoint = await this.lock(scope, id);
    const now = this.clock.now();
    await this.endpoints.update(endpoint.id, { deletedAt: now, enabled: false, updatedAt: now });
    await this.bus.publish(new WebhookEndpointDeleted(scope, endpoint.id, now));
    await this.audited('webhook_endpoint.deleted', scope, id);
  }

  /**
   * Records a `webhook_endpoint.test` event for this endpoint alone (the
   * fan-out sends it to no other endpoint, whatever they subscribe to); it
   * is then delivered, signed and retried like any event. A disabled
   * endpoint is 409: enable it first. At most TEST_EVENTS_PER_MINUTE per
   * endpoint (every replica: counted on the endpoint row, in this
   * transaction, so a refused call counts nothing): 429 with Retry-After.
   * Returns the event's id.
   */
  @Transactional()
  async sendTestEvent(scope: TenantScope, id: number): Promise<number> {
    const endpoint = await this.lock(scope, id);
    if (!endpoint.enabled)
      throw AppError.invalidState('This endpoint is disabled: enable it first');
    await this.countTestEvent(endpoint.id);
    const eventId = await this.events.record(scope, TEST_EVENT, {
      endpoint_id: endpoint.id,
      message: 'A test event from Joma: your endpoint receives and verifies webhooks.',
    });
    await this.audited('webhook_endpoint.test_sent', scope, id, { eventId });
    return eventId;
  }

  private async countTestEvent(id: number): Promise<void> {
    const now = this.clock.now();
    const windowStart = new Date(now.getTime() - 60_000);
    if (await this.endpoints.countTestEvent(id, windowStart, now, TEST_EVENTS_PER_MINUTE)) return;
    const heldSince = await this.endpoints.testEventWindowStart(id);
    const waitS = Math.ceil((heldSince.getTime() + 60_000 - now.getTime()) / 1000);
    throw new AppError(
      ErrorCode.RATE_LIMITED,
      `At most ${TEST_EVENTS_PER_MINUTE} test events per endpoint per minute`,
      undefined,
      { 'Retry-After': String(Math.max(1, waitS)) },
    );
  }

  /** A new secret, effective at once: the old one stops verifying now (no grace period). */
  @Transactional()
  async rotateSecret(scope: TenantScope, id: number): Promise<EndpointWithSecret> {
    const endpoint = await this.lock(scope, id);
    const secret = newEndpointSecret();
    const now = this.clock.now();
    await this.endpoints.update(endpoint.id, {
      secretCiphertext: sealSecret(this.config.encryptionKey, secret),
      secretRotatedAt: now,
      updatedAt: now,
    });
    await this.audited('webhook_endpoint.secret_rotated', scope, id);
    return { endpoint: await this.get(scope, id), secret };
  }

  /** Operators: endpoints of any app, optionally filtered. */
  listAll(
    query: PageQuery,
    filter: { applicationId?: number; mode?: Mode; appIds?: number[] },
  ): Promise<Page<WebhookEndpoint>> {
    return this.endpoints.pageAll(query, filter);
  }

  /** The partition an endpoint lives in (operators address endpoints by id alone). */
  async scopeOf(id: number): Promise<TenantScope> {
    const scope = await this.endpoints.scopeOfLive(id);
    if (!scope) throw AppError.notFound('Webhook endpoint');
    return scope;
  }

  /**
   * The endpoint's signing secret: from `sealed` when the caller read it a
   * moment ago (the dispatcher's claim, within CLAIMED_SECRET_FRESH_MS),
   * else as it is now in the database (so a rotation while the host was
   * resolving already applies, no grace period). Decrypted once per sealed
   * value. A legacy endpoint without one gets one sealed now, so nothing
   * goes out unsigned.
   */
  async signingSecret(id: number, sealed?: string | null): Promise<string> {
    const key = this.config.encryptionKey;
    const current = sealed ?? (await this.endpoints.sealedSecret(id));
    if (current) return this.open(current);
    await this.endpoints.fillMissingSecret(id, sealSecret(key, newEndpointSecret()));
    return this.open((await this.endpoints.sealedSecret(id))!);
  }

  /** Decrypts a sealed secret once per sealed value (a rotation seals a new value). */
  private open(sealed: string): string {
    let secret = this.opened.get(sealed);
    if (secret === undefined) {
      secret = openSecret(this.config.encryptionKey, sealed);
      if (this.opened.size >= OPENED_SECRETS_KEPT) this.opened.clear();
      this.opened.set(sealed, secret);
    }
    return secret;
  }

  private async lock(scope: TenantScope, id: number): Promise<WebhookEndpoint> {
    const found = await this.endpoints.lockLiveIn(scope, id);
    if (!found) throw AppError.notFound('Webhook endpoint');
    return found;
  }

  /**
   * Scheme and shape rules only, no I/O: the SSRF check that resolves the
   * host runs earlier, in WebhookTargetGuard, before the request holds a
   * database connection. Returns the normalised URL.
   */
  private async checkUrl(raw: string, mode: Mode): Promise<string> {
    return checkEndpointUrl(raw, mode, this.config.webhookTestAllowedSchemes).href;
  }
}

/** ["*"] alone, or distinct catalogue types in the order given. */
export function normaliseEvents(events: string[]): string[] {
  const distinct = [...new Set(events)];
  if (distinct.includes(ALL_EVENTS) && distinct.length > 1) {
    throw AppError.validation(
      'events',
      'events is either ["*"] or a list of event types, not both',
    );
  }
  return distinct;
}

function blankToNull(s: string | undefined): string | null {
  return s === undefined || s.trim() === '' ? null : s.trim();
}
