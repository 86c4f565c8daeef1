import {
  applyDecorators,
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  SetMetadata,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiHeader } from '@nestjs/swagger';
import { Propagation, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { from, lastValueFrom, Observable } from 'rxjs';

import { Clock } from '../common/clock/clock';
import { decryptSecret, encryptSecret, sha256Hex } from '../common/crypto/crypto';
import { AppError } from '../common/errors/app-error';
import { ErrorCode, httpStatusOf } from '../common/errors/error-code';
import { Envelope, errorEnvelope } from '../common/http/envelope';
import { RenderedAppError } from '../common/http/error-response';
import { type HttpResponse, nodeResponse } from '../common/http/replies';
import type { JomaRequest } from '../common/http/request-context';
import { ApiErrors } from '../common/http/swagger';
import { AppConfig } from '../config/app-config';
import { canonicalJson } from './canonical-json';
import type { KeyRow } from './idempotency.repository';
import { ClaimedKey, IdempotencyService, tookOver } from './idempotency.service';

const IDEMPOTENT = 'joma:idempotent';
export const IDEMPOTENCY_HEADER = 'idempotency-key';

export interface IdempotentOptions {
  /**
   * The handler commits its work in steps around network calls and records
   * recovery points (IdempotencyService.checkpoint), so it runs outside any
   * transaction of the interceptor's. Without it the handler and the stored
   * outcome commit in one transaction: all or nothing.
   */
  recoveryPoints?: boolean;
}

/** Marks a creating POST as accepting `Idempotency-Key`. */
export function Idempotent(options: IdempotentOptions = {}) {
  return applyDecorators(
    SetMetadata(IDEMPOTENT, options),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
      schema: { type: 'string', minLength: 1, maxLength: 255 },
      description:
        'Up to 255 characters, scoped to app and mode, kept 24 h. A retry with the same key and body replays the first response (Idempotent-Replayed: true); a different body is 422 IDEMPOTENCY_KEY_REUSED; while the first is running, 409 IDEMPOTENCY_KEY_IN_USE.',
    }),
    ApiErrors(409, 422),
  );
}

/** Business outcomes worth replaying; 400s, auth errors, 429 and 5xx leave the key free. */
const STORED_ERRORS = new Set<ErrorCode>([
  ErrorCode.RESOURCE_NOT_FOUND,
  ErrorCode.INVALID_STATE,
  ErrorCode.DUPLICATE_RESOURCE,
  ErrorCode.AMOUNT_OUT_OF_RANGE,
  ErrorCode.WEBHOOK_ENDPOINT_LIMIT_REACHED,
]);

type Outcome = { body: unknown } | { error: AppError };

/**
 * The one idempotency mechanism. The key is claimed (committed as STARTED,
 * with a lease) before the handler runs and the outcome stored after it:
 * - by default the handler's writes, its events and the stored outcome share
 *   one transaction, so a crash leaves the key STARTED with nothing done,
 *   and a retry after the lease runs the request afresh;
 * - a handler marked `recoveryPoints` commits in steps and records where it
 *   got; a retry after a crash resumes from there (never a second payment).
 * A stored business error (404, 409, 422) undoes the handler's writes (a
 * savepoint) and is stored for replay. It runs outside the envelope
 * interceptor, so it stores (and replays) the exact body bytes. Stored bodies
 * are encrypted at rest: some responses carry secrets shown once.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly keys: IdempotencyService,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const options = this.reflector.get<IdempotentOptions | undefined>(
      IDEMPOTENT,
      context.getHandler(),
    );
    if (!options) return next.handle();
    const req = context.switchToHttp().getRequest<JomaRequest>();
    const res = context.switchToHttp().getResponse<HttpResponse>();
    // (Node joins a repeated header of this kind into one string, as Express's req.header did.)
    const key = req.headers[IDEMPOTENCY_HEADER] as string | undefined;
    if (key === undefined) return next.handle();
    if (key.length < 1 || key.length > 255)
      throw AppError.validation('Idempotency-Key', 'Idempotency-Key must be 1 to 255 characters');
    const app = req.principalApp;
    if (!app) throw new Error('@Idempotent() needs an app-authenticated route');
    const method = req.method;
    const path = req.originalUrl.split('?')[0];
    const hash = sha256Hex(`${method} ${path}\n${canonicalJson(req.body ?? null)}`);
    return from(
      this.run(
        { appId: app.appId, mode: app.mode, key },
        { method, path, hash },
        options,
        res,
        next,
      ),
    );
  }

  private async run(
    scope: { appId: number; mode: string; key: string },
    identity: { method: string; path: string; hash: string },
    options: IdempotentOptions,
    res: HttpResponse,
    next: CallHandler,
  ): Promise<unknown> {
    const claim = await this.keys.claim(scope, identity);
    if (claim.kind === 'replay') return this.unwrap(this.replay(claim.row, res));
    const key = claim.key;
    this.keys.enter(key);
    const outcome = options.recoveryPoints
      ? await this.inSteps(key, res, next)
      : await this.atomically(key, res, next);
    return this.unwrap(outcome);
  }

  private unwrap(outcome: Outcome): unknown {
    if ('error' in outcome) throw outcome.error;
    return outcome.body;
  }

  /** Handler and stored outcome in one transaction; anything not stored frees the key. */
  private async atomically(
    key: ClaimedKey,
    res: HttpResponse,
    next: CallHandler,
  ): Promise<Outcome> {
    try {
      return await this.committed(async () => {
        let outcome: Outcome;
        try {
          // A savepoint: a stored business error undoes the handler's writes
          // and is stored in this same transaction.
          const body = await this.txHost.withTransaction(Propagation.Nested, () =>
            lastValueFrom(next.handle()),
          );
          outcome = { body };
          await this.store(key, res.statusCode, null, body);
        } catch (err) {
          if (!this.isStored(err)) throw err;
          outcome = await this.storeError(key, err);
        }
        return outcome;
      });
    } catch (err) {
      await this.keys.releaseQuietly(key);
      throw err;
    }
  }

  /** The handler commits its own steps; the outcome is stored after them. */
  private async inSteps(key: ClaimedKey, res: HttpResponse, next: CallHandler): Promise<Outcome> {
    let body: unknown;
    try {
      body = await lastValueFrom(next.handle());
    } catch (err) {
      if (!this.isStored(err)) {
        await this.keys.releaseQuietly(key);
        throw err;
      }
      return this.committed(() => this.storeError(key, err));
    }
    await this.committed(() => this.store(key, res.statusCode, null, body));
    return { body };
  }

  /**
   * `fn` in a transaction whose stored outcome may find the key taken over
   * by a retry (this request outlived its lease): then nothing of the
   * transaction is kept and this request is answered 409; the retry does
   * the work (or, past a recovery point, has resumed it and answers alike).
   */
  private async committed<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await this.txHost.withTransaction(fn);
    } catch (err) {
      throw this.keys.isTakenOver(err) ? tookOver() : err;
    }
  }

  private isStored(err: unknown): err is AppError {
    return err instanceof AppError && STORED_ERRORS.has(err.code);
  }

  private async storeError(key: ClaimedKey, err: AppError): Promise<Outcome> {
    const envelope = errorEnvelope(err.code, err.message, this.clock.now(), err.details);
    await this.store(key, httpStatusOf(err.code), err.code, envelope);
    return { error: new RenderedAppError(envelope) };
  }

  private async store(
    key: ClaimedKey,
    status: number,
    errorCode: ErrorCode | null,
    body: unknown,
  ): Promise<void> {
    // Sent behind, the COMMIT right after it; a key taken over fails the commit (see `committed`).
    await this.keys.finish(key, {
      status,
      errorCode,
      body: encryptSecret(this.config.encryptionKey, JSON.stringify(body)),
    });
  }

  private replay(stored: KeyRow, res: HttpResponse): Outcome {
    nodeResponse(res).setHeader('Idempotent-Replayed', 'true');
    const body = JSON.parse(
      decryptSecret(this.config.encryptionKey, stored.response_body!),
    ) as unknown;
    // Stored errors hold their whole envelope, so the replay is byte-identical.
    if (stored.error_code) return { error: new RenderedAppError(body as Envelope<null>) };
    return { body };
  }
}
