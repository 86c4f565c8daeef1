import {
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  SetMetadata,
  applyDecorators,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiHeader } from '@nestjs/swagger';
import { Propagation, TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { Response } from 'express';
import { from, lastValueFrom, Observable } from 'rxjs';
import { Clock } from '../common/clock/clock';
import { decryptSecret, encryptSecret, sha256Hex } from '../common/crypto/crypto';
import { AppConfig } from '../config/app-config';
import { AppError } from '../common/errors/app-error';
import { ErrorCode, httpStatusOf } from '../common/errors/error-code';
import { Envelope, errorEnvelope } from '../common/http/envelope';
import { RenderedAppError } from '../common/http/error-response';
import type { JomaRequest } from '../common/http/request-context';
import { ApiErrors } from '../common/http/swagger';
import { canonicalJson } from './canonical-json';

const IDEMPOTENT = 'joma:idempotent';
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60_000;
export const IDEMPOTENCY_HEADER = 'idempotency-key';

/** Marks a creating POST as accepting `Idempotency-Key` (decisions.md section 3). */
export function Idempotent() {
  return applyDecorators(
    SetMetadata(IDEMPOTENT, true),
    ApiHeader({
      name: 'Idempotency-Key',
      required: false,
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

interface StoredRow {
  method: string;
  path: string;
  request_hash: string;
  status_code: number;
  error_code: ErrorCode | null;
  response_body: string;
}

/**
 * The one idempotency mechanism. With a key it opens the transaction of the
 * request: a transaction-scoped advisory lock on (app, mode, key) marks the
 * key as in flight, the handler's writes and events join the transaction,
 * and the response is stored in it too, so a crash leaves nothing or all.
 * A stored business error (404, 409, 422) rolls back to a savepoint and is
 * stored in the same transaction, still under the lock. It runs outside the
 * envelope interceptor, so it stores (and replays) the exact body bytes.
 * Stored bodies are encrypted at rest: some responses carry secrets shown once.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly clock: Clock,
    private readonly config: AppConfig,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (!this.reflector.get<boolean>(IDEMPOTENT, context.getHandler())) return next.handle();
    const req = context.switchToHttp().getRequest<JomaRequest>();
    const res = context.switchToHttp().getResponse<Response>();
    const key = req.header(IDEMPOTENCY_HEADER);
    if (key === undefined) return next.handle();
    if (key.length < 1 || key.length > 255)
      throw AppError.validation('Idempotency-Key', 'Idempotency-Key must be 1 to 255 characters');
    const app = req.principalApp;
    if (!app) throw new Error('@Idempotent() needs an app-authenticated route');
    const scope = { appId: app.appId, mode: app.mode, key };
    const method = req.method;
    const path = req.originalUrl.split('?')[0];
    const requestHash = sha256Hex(`${method} ${path}\n${canonicalJson(req.body ?? null)}`);
    return from(this.run(scope, method, path, requestHash, res, next));
  }

  private async run(
    scope: { appId: number; mode: string; key: string },
    method: string,
    path: string,
    requestHash: string,
    res: Response,
    next: CallHandler,
  ): Promise<unknown> {
    const outcome = await this.txHost.withTransaction(
      async (): Promise<{ body: unknown } | { error: AppError }> => {
        const tx = this.txHost.tx;
        const [{ locked }] = await tx.query(
          `SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0)) AS locked`,
          [`idem:${scope.appId}:${scope.mode}:${scope.key}`],
        );
        if (!locked)
          throw new AppError(
            ErrorCode.IDEMPOTENCY_KEY_IN_USE,
            'A request with this Idempotency-Key is still in progress',
          );
        const now = this.clock.now();
        const [stored] = (await tx.query(
          `SELECT method, path, request_hash, status_code, error_code, response_body, expires_at > $4 AS live
           FROM idempotency_keys WHERE app_id = $1 AND mode = $2 AND key = $3`,
          [scope.appId, scope.mode, scope.key, now],
        )) as (StoredRow & { live: boolean })[];
        if (stored?.live) return this.replay(stored, method, path, requestHash, res);
        if (stored)
          await tx.query(
            `DELETE FROM idempotency_keys WHERE app_id = $1 AND mode = $2 AND key = $3`,
            [scope.appId, scope.mode, scope.key],
          );

        try {
          // A savepoint: a stored business error undoes the handler's writes but
          // keeps the key locked until its outcome is stored, in this transaction.
          const body = await this.txHost.withTransaction(Propagation.Nested, () =>
            lastValueFrom(next.handle()),
          );
          await this.store(scope, method, path, requestHash, res.statusCode, null, body);
          return { body };
        } catch (err) {
          if (!(err instanceof AppError) || !STORED_ERRORS.has(err.code)) throw err;
          const envelope = errorEnvelope(err.code, err.message, this.clock.now(), err.details);
          await this.store(
            scope,
            method,
            path,
            requestHash,
            httpStatusOf(err.code),
            err.code,
            envelope,
          );
          return { error: new RenderedAppError(envelope) };
        }
      },
    );
    if ('error' in outcome) throw outcome.error;
    return outcome.body;
  }

  private replay(
    stored: StoredRow,
    method: string,
    path: string,
    requestHash: string,
    res: Response,
  ): { body: unknown } | { error: AppError } {
    if (stored.method !== method || stored.path !== path || stored.request_hash !== requestHash) {
      throw new AppError(
        ErrorCode.IDEMPOTENCY_KEY_REUSED,
        'This Idempotency-Key was used with a different request',
      );
    }
    res.setHeader('Idempotent-Replayed', 'true');
    const body = JSON.parse(
      decryptSecret(this.config.encryptionKey, stored.response_body),
    ) as unknown;
    // Stored errors hold their whole envelope, so the replay is byte-identical.
    if (stored.error_code) return { error: new RenderedAppError(body as Envelope<null>) };
    return { body };
  }

  private async store(
    scope: { appId: number; mode: string; key: string },
    method: string,
    path: string,
    requestHash: string,
    status: number,
    errorCode: ErrorCode | null,
    body: unknown,
  ): Promise<void> {
    const now = this.clock.now();
    await this.txHost.tx.query(
      `INSERT INTO idempotency_keys (app_id, mode, key, method, path, request_hash, status_code, error_code, response_body, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        scope.appId,
        scope.mode,
        scope.key,
        method,
        path,
        requestHash,
        status,
        errorCode,
        encryptSecret(this.config.encryptionKey, JSON.stringify(body)),
        now,
        new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
      ],
    );
  }
}
