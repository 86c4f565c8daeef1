/**
 * The baseline of `npm run bench:api`: what this stack allows. A NestJS app
 * on Express with a ValidationPipe (Joma's own CreatePaymentDto), an envelope
 * interceptor and a pg Pool of the same size, doing the SQL a lean
 * implementation of the two measured routes needs against the same schema:
 *   POST /api/v1/payments: BEGIN; the app row; customer upsert; payment
 *     insert; COMMIT; the sandbox session insert; the payment's checkout
 *     update (RETURNING the row);
 *   GET /api/v1/payments/{id}: one SELECT of the payment in its partition.
 * No auth, logging, metrics or idempotency: Joma's ratio to it is the cost of
 * what Joma adds per request.
 */
import { randomBytes } from 'node:crypto';

import {
  Body,
  CallHandler,
  Controller,
  ExecutionContext,
  Get,
  Injectable,
  Module,
  NestInterceptor,
  NotFoundException,
  Param,
  ParseIntPipe,
  Post,
  ValidationPipe,
} from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { Pool } from 'pg';
import { map, Observable } from 'rxjs';

import { CreatePaymentDto } from '../src/payments';

/** The same request contract as Joma's route (validation is the API's cost, not Joma's). */
class CreatePayment extends CreatePaymentDto {}

@Injectable()
class Envelope implements NestInterceptor {
  intercept(_ctx: ExecutionContext, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(
      map((data: unknown) => ({
        data,
        meta: { success: true, message: 'OK', timestamp: new Date().toISOString() },
        pagination: { page: 0, size: 0, totalElements: 0, totalPages: 0 },
      })),
    );
  }
}

/**
 * The cheapest refusal this stack makes, for the load-shedding comparison:
 * one token bucket (`perSecond`, burst twice that) in an Express middleware
 * ahead of routing, answering 429 with Retry-After and a small JSON body.
 */
function tokenBucket(perSecond: number) {
  const burst = 2 * perSecond;
  let tokens = burst;
  let at = performance.now();
  return (
    _req: unknown,
    res: { status(n: number): { set(h: object): { json(b: unknown): void } } },
    next: () => void,
  ) => {
    const now = performance.now();
    tokens = Math.min(burst, tokens + ((now - at) / 1000) * perSecond);
    at = now;
    if (tokens >= 1) {
      tokens -= 1;
      return next();
    }
    res
      .status(429)
      .set({ 'Retry-After': '1' })
      .json({ error: { code: 'RATE_LIMITED', message: 'Too many requests; retry after 1 s' } });
  };
}

export async function startSkeleton(
  databaseUrl: string,
  appId: number,
  poolSize: number,
  rateLimitPerSecond = 0,
): Promise<{ port: number; close(): Promise<void> }> {
  // Connections kept open once opened, as Joma's are (src/database/data-source-options.ts).
  const pool = new Pool({ connectionString: databaseUrl, max: poolSize, idleTimeoutMillis: 0 });
  const scope = [appId, 'TEST'];

  @Controller('api/v1/payments')
  class Payments {
    @Post()
    async create(@Body() body: CreatePayment) {
      const c = await pool.connect();
      let payment: Record<string, unknown>;
      let merchant: string;
      try {
        await c.query('BEGIN');
        merchant = (await c.query('SELECT * FROM apps WHERE id = $1', [appId])).rows[0].name;
        const customer = await c.query(
          `INSERT INTO customers (app_id, mode, external_id) VALUES ($1, $2, $3)
           ON CONFLICT (app_id, mode, external_id) DO UPDATE SET updated_at = customers.updated_at RETURNING id`,
          [...scope, body.customerReference],
        );
        payment = (
          await c.query(
            `INSERT INTO payments (app_id, mode, reference, status, amount_minor, gateway, customer_id, expires_at)
             VALUES ($1, $2, $3, 'PENDING', $4, 'sandbox', $5, now() + interval '30 minutes') RETURNING *`,
            [
              ...scope,
              `pay_${randomBytes(12).toString('hex')}`,
              body.amountMinor,
              customer.rows[0].id,
            ],
          )
        ).rows[0];
        await c.query('COMMIT');
      } catch (err) {
        await c.query('ROLLBACK');
        throw err;
      } finally {
        c.release();
      }
      const session = `sbx_${randomBytes(12).toString('hex')}`;
      await pool.query(
        `INSERT INTO sandbox_sessions (session_id, payment_reference, merchant_name, amount_minor, currency, return_url, status)
         VALUES ($1, $2, $3, $4, 'BDT', $5, 'OPEN')`,
        [session, payment.reference, merchant, body.amountMinor, 'http://127.0.0.1/return'],
      );
      return (
        await pool.query(
          `UPDATE payments SET gateway_session_id = $1, checkout_url = $2, updated_at = now()
            WHERE id = $3 RETURNING *`,
          [session, `http://127.0.0.1/sandbox/${session}`, payment.id],
        )
      ).rows[0];
    }

    @Get(':id')
    async get(@Param('id', ParseIntPipe) id: number) {
      const row = (
        await pool.query('SELECT * FROM payments WHERE id = $1 AND app_id = $2 AND mode = $3', [
          id,
          ...scope,
        ])
      ).rows[0];
      if (!row) throw new NotFoundException();
      return row;
    }
  }

  @Module({
    controllers: [Payments],
    providers: [{ provide: APP_INTERCEPTOR, useClass: Envelope }],
  })
  class SkeletonModule {}

  const app = await NestFactory.create<NestExpressApplication>(SkeletonModule, { logger: false });
  if (rateLimitPerSecond > 0) app.use(tokenBucket(rateLimitPerSecond));
  app.useGlobalPipes(
    new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true }),
  );
  await app.listen(0, '127.0.0.1');
  const port = (app.getHttpServer().address() as { port: number }).port;
  return {
    port,
    async close() {
      await app.close();
      await pool.end();
    },
  };
}
