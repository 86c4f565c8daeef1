import { performance } from 'node:perf_hooks';

import { Injectable, Logger } from '@nestjs/common';

import { Clock } from '../../common/clock/clock';
import { AppConfig } from '../../config/app-config';
import { WebhookEndpointsService } from '../endpoints/webhook-endpoints.service';
import {
  ResolvedAddress,
  resolveTarget,
  TargetRefused,
  withDeadline,
} from '../security/target-resolver';
import { deliveryUrlProblem, hostOf } from '../security/url-policy';
import { DeliveryError, DeliveryStatus } from './delivery-status';
import { DeliveryAgents, SendOutcome, sendWebhook } from './http-sender';
import { nextRetryDelayMs } from './retry-schedule';
import { deliveryHeaders } from './signer';
import type { ClaimedDelivery as Claimed } from './webhook-deliveries.repository';

/** A claim's copy of the endpoint's sealed secret is used if the attempt is signed this soon after the claim. */
export const CLAIMED_SECRET_FRESH_MS = 5;

/** How one attempt ended, and when to try again. */
export interface AttemptResult {
  status: DeliveryStatus;
  statusCode: number | null;
  error: string | null;
  excerpt: string | null;
  nextAttemptAt: Date | null;
  target: ResolvedAddress | null;
  signedTimestamp: number | null;
}

/**
 * The attempt of the webhook dispatcher's three parts (the pump claims and
 * paces, this makes one attempt, the recorder writes what it ended as): no
 * state of its own, no database write.
 */
@Injectable()
export class DeliveryAttempt {
  private readonly logger = new Logger(DeliveryAttempt.name);

  constructor(
    private readonly endpoints: WebhookEndpointsService,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  /**
   * One attempt of a claimed delivery, start to answer: parked at once if
   * the endpoint is gone, disabled or its URL is no longer allowed; else
   * the host resolved (refusing private targets), the body signed afresh
   * and sent, all within one deadline. What the attempt ended as, and when
   * to try again.
   */
  async run(
    c: Claimed,
    signal: AbortSignal,
    claimedAt: number,
    agents: DeliveryAgents,
  ): Promise<AttemptResult> {
    const park = (error: string): AttemptResult => ({
      status: 'PARKED',
      statusCode: null,
      error,
      excerpt: null,
      nextAttemptAt: null,
      target: null,
      signedTimestamp: null,
    });
    if (c.deleted_at) return park(DeliveryError.ENDPOINT_DELETED);
    if (!c.enabled) return park(DeliveryError.ENDPOINT_DISABLED);
    const problem = deliveryUrlProblem(c.url, c.mode, this.config.webhookTestAllowedSchemes);
    if (problem) return park(problem);

    const url = new URL(c.url);
    // One deadline for the whole attempt: resolving, connecting and answering.
    const deadline = performance.now() + this.config.webhookTimeoutMs;
    let target: ResolvedAddress;
    try {
      target = await withDeadline(
        resolveTarget(hostOf(url), {
          allowPrivate: this.config.webhookAllowPrivateTargets,
          dnsServers: this.config.webhookDnsServers,
        }),
        this.config.webhookTimeoutMs,
        () =>
          new TargetRefused(
            'DNS_FAILED',
            `${hostOf(url)} did not resolve within ${this.config.webhookTimeoutMs} ms`,
          ),
      );
    } catch (err) {
      // By host name only: never the address it resolved to (decisions 14 as amended).
      const e =
        err instanceof TargetRefused
          ? `${err.code}: ${err.message}`
          : `DNS_FAILED: ${hostOf(url)} could not be resolved`;
      return this.failure(c, { statusCode: null, excerpt: null, error: e }, null, null);
    }
    let secret: string;
    try {
      const fresh = performance.now() - claimedAt <= CLAIMED_SECRET_FRESH_MS;
      secret = await this.endpoints.signingSecret(
        c.endpoint_id,
        fresh ? c.secret_ciphertext : undefined,
      );
    } catch (err) {
      this.logger.error(
        `endpoint ${c.endpoint_id}: signing secret unreadable (${(err as Error).message})`,
      );
      return this.failure(
        c,
        {
          statusCode: null,
          excerpt: null,
          error: 'SECRET_UNREADABLE: the signing secret cannot be decrypted with ENCRYPTION_KEY',
        },
        target,
        null,
      );
    }
    const body = Buffer.from(c.body, 'utf8');
    const unixSeconds = Math.floor(this.clock.nowMs() / 1000);
    const headers = deliveryHeaders({
      secret,
      body,
      deliveryId: c.id,
      eventType: c.event_type,
      unixSeconds,
    });
    const outcome = await sendWebhook({
      url,
      target,
      headers,
      body,
      timeoutMs: Math.max(1, Math.round(deadline - performance.now())),
      signal,
      agents,
    });
    if (
      outcome.error === null &&
      outcome.statusCode !== null &&
      outcome.statusCode >= 200 &&
      outcome.statusCode < 300
    ) {
      return {
        status: 'DELIVERED',
        statusCode: outcome.statusCode,
        error: null,
        excerpt: outcome.excerpt,
        nextAttemptAt: null,
        target,
        signedTimestamp: unixSeconds,
      };
    }
    return this.failure(c, outcome, target, unixSeconds);
  }

  private failure(
    c: Claimed,
    outcome: SendOutcome,
    target: ResolvedAddress | null,
    signedTimestamp: number | null,
  ): AttemptResult {
    const error = outcome.error ?? `HTTP_${outcome.statusCode}`;
    const delay = nextRetryDelayMs(c.cycle_attempts + 1);
    return {
      status: delay === null ? 'PARKED' : 'RETRYING',
      statusCode: outcome.statusCode,
      error,
      excerpt: outcome.excerpt,
      nextAttemptAt: delay === null ? null : new Date(this.clock.nowMs() + delay),
      target,
      signedTimestamp,
    };
  }
}
