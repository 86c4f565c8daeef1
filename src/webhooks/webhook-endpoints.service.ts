import { Injectable } from '@nestjs/common';
import { TransactionHost, Transactional } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { IsNull } from 'typeorm';
import { Clock } from '../common/clock/clock';
import { AppError } from '../common/errors/app-error';
import { ErrorCode } from '../common/errors/error-code';
import { Page } from '../common/http/envelope';
import { pageOf, PageQuery } from '../common/http/pagination';
import type { Mode } from '../common/http/request-context';
import { AppConfig } from '../config/app-config';
import type { TenantScope } from '../database/tenant';
import { DeliveryError } from './delivery-status';
import { newEndpointSecret, sealSecret } from './endpoint-secret';
import { checkEndpointUrl } from './url-policy';
import { ALL_EVENTS, WebhookEndpoint } from './webhook-endpoint.entity';

/** At most this many webhook endpoints per app per mode. */
export const MAX_ENDPOINTS_PER_MODE = 5;

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

/** Endpoint management for apps (mode from the key) and lookups for operators. */
@Injectable()
export class WebhookEndpointsService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  private get repo() {
    return this.txHost.tx.getRepository(WebhookEndpoint);
  }

  async create(scope: TenantScope, input: EndpointInput): Promise<EndpointWithSecret> {
    const url = await this.checkUrl(input.url, scope.mode);
    return this.insert(scope, { ...input, url, events: normaliseEvents(input.events) });
  }

  @Transactional()
  private async insert(scope: TenantScope, input: EndpointInput): Promise<EndpointWithSecret> {
    await this.txHost.tx.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [
      `webhook-endpoints:${scope.appId}:${scope.mode}`,
    ]);
    const count = await this.repo.count({
      where: { appId: scope.appId, mode: scope.mode, deletedAt: IsNull() },
    });
    if (count >= MAX_ENDPOINTS_PER_MODE) {
      throw new AppError(
        ErrorCode.WEBHOOK_ENDPOINT_LIMIT_REACHED,
        `An app can have at most ${MAX_ENDPOINTS_PER_MODE} webhook endpoints per mode`,
      );
    }
    const secret = newEndpointSecret();
    const now = this.clock.now();
    const saved = await this.repo.save(
      this.repo.create({
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
      }),
    );
    return { endpoint: await this.get(scope, saved.id), secret };
  }

  list(scope: TenantScope, query: PageQuery): Promise<Page<WebhookEndpoint>> {
    const qb = this.repo
      .createQueryBuilder('e')
      .where('e.appId = :appId AND e.mode = :mode AND e.deletedAt IS NULL', {
        appId: scope.appId,
        mode: scope.mode,
      });
    return pageOf(qb, 'e', query);
  }

  async get(scope: TenantScope, id: number): Promise<WebhookEndpoint> {
    const found = Number.isSafeInteger(id)
      ? await this.repo.findOne({
          where: { id, appId: scope.appId, mode: scope.mode, deletedAt: IsNull() },
        })
      : null;
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
    await this.repo.update({ id: endpoint.id }, changes);
    return this.get(scope, id);
  }

  /** Removes the endpoint from use; its deliveries and attempts stay for the record. */
  @Transactional()
  async remove(scope: TenantScope, id: number): Promise<void> {
    const endpoint = await this.lock(scope, id);
    const now = this.clock.now();
    await this.repo.update({ id: endpoint.id }, { deletedAt: now, enabled: false, updatedAt: now });
    await this.txHost.tx.query(
      `UPDATE webhook_deliveries SET status = 'PARKED', next_attempt_at = NULL, last_error = $2, updated_at = $3
        WHERE endpoint_id = $1 AND status IN ('PENDING', 'RETRYING') AND (locked_until IS NULL OR locked_until <= $3)`,
      [endpoint.id, DeliveryError.ENDPOINT_DELETED, now],
    );
  }

  /** A new secret, effective at once: the old one stops verifying now (no grace period). */
  @Transactional()
  async rotateSecret(scope: TenantScope, id: number): Promise<EndpointWithSecret> {
    const endpoint = await this.lock(scope, id);
    const secret = newEndpointSecret();
    const now = this.clock.now();
    await this.repo.update(
      { id: endpoint.id },
      {
        secretCiphertext: sealSecret(this.config.encryptionKey, secret),
        secretRotatedAt: now,
        updatedAt: now,
      },
    );
    return { endpoint: await this.get(scope, id), secret };
  }

  /** Operators: endpoints of any app, optionally filtered. */
  listAll(
    query: PageQuery,
    filter: { applicationId?: number; mode?: Mode },
  ): Promise<Page<WebhookEndpoint>> {
    const qb = this.repo.createQueryBuilder('e').where('e.deletedAt IS NULL');
    if (filter.applicationId) qb.andWhere('e.appId = :appId', { appId: filter.applicationId });
    if (filter.mode) qb.andWhere('e.mode = :mode', { mode: filter.mode });
    return pageOf(qb, 'e', query);
  }

  /** The partition an endpoint lives in (operators address endpoints by id alone). */
  async scopeOf(id: number): Promise<TenantScope> {
    const e = await this.repo.findOne({
      where: { id, deletedAt: IsNull() },
      select: { id: true, appId: true, mode: true },
    });
    if (!e) throw AppError.notFound('Webhook endpoint');
    return { appId: e.appId, mode: e.mode };
  }

  private async lock(scope: TenantScope, id: number): Promise<WebhookEndpoint> {
    const found = await this.repo.findOne({
      where: { id, appId: scope.appId, mode: scope.mode, deletedAt: IsNull() },
      lock: { mode: 'pessimistic_write' },
    });
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
