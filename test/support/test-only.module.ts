import { Body, Controller, Get, Injectable, Module, Post } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';

import { AuthModule } from '../../src/auth/auth.module';
import { AppAuth, CurrentApp } from '../../src/auth/decorators';
import { AppError } from '../../src/common/errors/app-error';
import { ErrorCode } from '../../src/common/errors/error-code';
import type { AppPrincipal } from '../../src/common/http/request-context';
import { Idempotent } from '../../src/idempotency/idempotency.interceptor';

/** SQL a test route runs to provoke a real database failure; it must never reach a client. */
export const FAILING_SQL = `SELECT secret_hash FROM no_such_table_for_tests WHERE api_key = 'sk_live_must_not_leak'`;

interface Gate {
  entered: Promise<void>;
  signalEntered: () => void;
  released: Promise<void>;
  release: () => void;
}

/** Lets a test hold a request inside its handler, to observe what overlaps it. */
@Injectable()
export class Latch {
  private readonly gates = new Map<string, Gate>();

  private gate(name: string): Gate {
    let g = this.gates.get(name);
    if (!g) {
      let signalEntered!: () => void;
      let release!: () => void;
      const entered = new Promise<void>((ok) => (signalEntered = ok));
      const released = new Promise<void>((ok) => (release = ok));
      g = { entered, signalEntered, released, release };
      this.gates.set(name, g);
    }
    return g;
  }

  /** Called by the handler: announces it is inside, then waits for release. */
  async pass(name: string): Promise<void> {
    const g = this.gate(name);
    g.signalEntered();
    await g.released;
  }

  entered(name: string): Promise<void> {
    return this.gate(name).entered;
  }

  release(name: string): void {
    this.gate(name).release();
  }
}

/** Routes that exist only in tests, mounted under /api/v1/test-only. */
@ApiExcludeController()
@Controller('api/v1/test-only')
export class TestOnlyController {
  private calls = 0;
  private readonly failedOnce = new Set<string>();

  constructor(
    private readonly latch: Latch,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
  ) {}

  /** A real database failure (undefined table) with SQL and a secret-looking literal in its message. */
  @Get('db-failure')
  async dbFailure(): Promise<unknown> {
    return this.txHost.tx.query(FAILING_SQL);
  }

  /** An idempotent create that waits at a gate named in the body. */
  @Post('held')
  @AppAuth()
  @Idempotent()
  async held(@Body() body: unknown): Promise<{ call: number }> {
    const gate = (body as { gate?: unknown }).gate;
    if (typeof gate === 'string') await this.latch.pass(gate);
    return { call: ++this.calls };
  }

  /**
   * An idempotent create that writes a customer (the body's reference) in
   * its transaction, then waits at the body's gate: a second request with
   * the same reference waits for this one's commit or rollback.
   */
  @Post('held-write')
  @AppAuth()
  @Idempotent()
  async heldWrite(
    @Body() body: { gate: string; reference: string },
    @CurrentApp() app: AppPrincipal,
  ): Promise<{ call: number }> {
    await this.txHost.tx.query(
      `INSERT INTO customers (app_id, mode, external_id) VALUES ($1, $2, $3)`,
      [app.appId, app.mode, body.reference],
    );
    await this.latch.pass(body.gate);
    return { call: ++this.calls };
  }

  /** An idempotent create that fails unexpectedly (500) the first time it sees a name. */
  @Post('fail-once')
  @AppAuth()
  @Idempotent()
  failOnce(@Body() body: unknown): { call: number } {
    const name = String((body as { name?: unknown }).name);
    if (!this.failedOnce.has(name)) {
      this.failedOnce.add(name);
      throw new Error('transient failure');
    }
    return { call: ++this.calls };
  }

  /** An idempotent create answering 503 (nothing committed) the first time it sees a name. */
  @Post('unavailable-once')
  @AppAuth()
  @Idempotent()
  unavailableOnce(@Body() body: unknown): { call: number } {
    const name = String((body as { name?: unknown }).name);
    if (!this.failedOnce.has(`503:${name}`)) {
      this.failedOnce.add(`503:${name}`);
      throw new AppError(ErrorCode.SERVICE_UNAVAILABLE, 'Not now');
    }
    return { call: ++this.calls };
  }

  /** An idempotent create on another path. */
  @Post('echo')
  @AppAuth()
  @Idempotent()
  echo(@Body() body: unknown): { call: number; body: unknown } {
    return { call: ++this.calls, body };
  }
}

@Module({
  imports: [AuthModule],
  controllers: [TestOnlyController],
  providers: [Latch],
})
export class TestOnlyModule {}
