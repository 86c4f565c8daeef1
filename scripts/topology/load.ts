import { randomUUID } from 'node:crypto';

import { sleep } from './processes';

/** A write the service acknowledged (a 2xx), with the record it named. */
export interface Ack {
  kind: 'invoice' | 'payment' | 'settle' | 'refund';
  /** The Idempotency-Key (settle has none: the payment's key). */
  key: string;
  id: number;
}

/** One write attempt as the client saw it, for the outage measure. */
interface Attempt {
  start: number;
  end: number;
  ok: boolean;
}

/** Joma's envelope, as far as the clients read it. */
interface Envelope {
  data?: { id?: number; status?: string } | null;
  meta?: { errorCode?: string; message?: string };
}

/** Answers a client sends again unchanged (same Idempotency-Key): the service or the path is not there. */
const RETRYABLE = new Set([0, 502, 503, 504]);
/** Longest a client keeps trying one request before giving up on it (it stays unacknowledged). */
const GIVE_UP_MS = 90_000;

/**
 * The drill's clients: each worker runs stories through HAProxy, one after
 * the other: an invoice, a payment for it, its settlement through the
 * sandbox's test helper, and every other time a partial refund. Every
 * create carries an Idempotency-Key, and the key is also written into the
 * record (line item description, payment description, refund reason), so
 * the checks can count the records per key. A refused connection, 502,
 * 503 or 504, or no answer within 10 s, is sent again with the same key, as
 * a client should; 429 and 409 IDEMPOTENCY_KEY_IN_USE wait and send again.
 */
export class Load {
  requests = 0;
  readonly acks: Ack[] = [];
  /** Answers the drill did not expect (a 500, a 4xx): each is a finding. */
  readonly unexpected: string[] = [];
  /** Requests given up on after GIVE_UP_MS (never acknowledged). */
  abandoned = 0;
  /** Answers that were sent again, by status (0: no answer): what clients met during the faults. */
  readonly retried: Record<string, number> = {};
  private readonly attempts: Attempt[] = [];
  private stopping = false;
  private workers: Promise<void>[] = [];

  constructor(
    private readonly base: string,
    private readonly creds: { apiKey: string; apiSecret: string },
  ) {}

  start(concurrency: number): void {
    this.workers = Array.from({ length: concurrency }, () => this.worker());
  }

  /** Lets each worker finish its story, then resolves. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.workers);
  }

  /** The first acknowledged write that completed at or after `t` (epoch ms), if any yet. */
  firstSuccessAfter(t: number): number | undefined {
    let first: number | undefined;
    for (const a of this.attempts)
      if (a.ok && a.end >= t && (first === undefined || a.end < first)) first = a.end;
    return first;
  }

  /**
   * The longest time, as the clients saw it, during which writes failed:
   * from a failed attempt that followed a success to the next success.
   */
  longestOutageMs(): number {
    const byEnd = [...this.attempts].sort((a, b) => a.end - b.end);
    let longest = 0;
    let failingSince: number | undefined;
    for (const a of byEnd) {
      if (!a.ok) failingSince ??= a.start;
      else if (failingSince !== undefined) {
        longest = Math.max(longest, a.end - failingSince);
        failingSince = undefined;
      }
    }
    return longest;
  }

  private async worker(): Promise<void> {
    while (!this.stopping) await this.story();
  }

  private async story(): Promise<void> {
    const invKey = `drill-inv-${randomUUID()}`;
    const amount = 10_000 + Math.floor(Math.random() * 90_000);
    const invoice = await this.write('invoice', invKey, '/api/v1/invoices', {
      customerReference: 'drill-customer',
      lineItems: [{ description: invKey, qty: 1, unitAmountMinor: amount }],
    });
    if (!invoice) return;
    const payKey = `drill-pay-${randomUUID()}`;
    const payment = await this.write('payment', payKey, '/api/v1/payments', {
      invoiceId: invoice,
      amountMinor: amount,
      description: payKey,
    });
    if (!payment) return;
    const settled = await this.write(
      'settle',
      payKey,
      `/api/v1/test-helpers/payments/${payment}/settle`,
      { outcome: 'succeeded' },
    );
    if (!settled || Math.random() < 0.5) return;
    const refundKey = `drill-ref-${randomUUID()}`;
    await this.write('refund', refundKey, `/api/v1/payments/${payment}/refunds`, {
      amountMinor: 1_000,
      reason: refundKey,
    });
  }

  /** Sends one write until it is answered for good; its record's id when acknowledged. */
  private async write(
    kind: Ack['kind'],
    key: string,
    path: string,
    body: unknown,
  ): Promise<number | undefined> {
    const giveUp = Date.now() + GIVE_UP_MS;
    for (;;) {
      const start = Date.now();
      const { status, json, retryAfterS } = await this.post(
        path,
        body,
        kind === 'settle' ? undefined : key,
      );
      const end = Date.now();
      this.requests++;
      if (status >= 200 && status < 300) {
        this.attempts.push({ start, end, ok: true });
        const id = Number(json?.data?.id);
        this.acks.push({ kind, key, id });
        return id;
      }
      const code = json?.meta?.errorCode;
      if (RETRYABLE.has(status)) this.attempts.push({ start, end, ok: false });
      // While it cannot write, Joma (or HAProxy for it) says when to come back (decisions 21).
      if (status === 503 && !(retryAfterS > 0))
        this.unexpected.push(`${kind} 503 without Retry-After`);
      // A settle whose first answer was lost finds the payment settled already.
      if (kind === 'settle' && status === 409 && (await this.isSucceeded(path))) {
        this.acks.push({ kind, key, id: Number(path.split('/')[5]) });
        return Number(path.split('/')[5]);
      }
      const again =
        RETRYABLE.has(status) ||
        status === 429 ||
        (status === 409 && code === 'IDEMPOTENCY_KEY_IN_USE');
      if (!again) {
        this.unexpected.push(
          `${kind} ${status} ${code ?? ''} ${String(json?.meta?.message ?? '').slice(0, 120)}`,
        );
        return undefined;
      }
      this.retried[status] = (this.retried[status] ?? 0) + 1;
      if (Date.now() > giveUp) {
        this.abandoned++;
        return undefined;
      }
      await sleep(Math.min(retryAfterS * 1000, 1_000) || 200);
    }
  }

  private async isSucceeded(settlePath: string): Promise<boolean> {
    const id = settlePath.split('/')[5];
    const res = await this.request('GET', `/api/v1/payments/${id}`);
    return res.status === 200 && res.json?.data?.status === 'SUCCEEDED';
  }

  private post(path: string, body: unknown, key?: string) {
    return this.request('POST', path, body, key);
  }

  private async request(method: string, path: string, body?: unknown, key?: string) {
    try {
      const res = await fetch(this.base + path, {
        method,
        headers: {
          'content-type': 'application/json',
          'x-api-key': this.creds.apiKey,
          'x-api-secret': this.creds.apiSecret,
          ...(key ? { 'idempotency-key': key } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      const text = await res.text();
      let json: Envelope | undefined;
      try {
        json = JSON.parse(text) as Envelope;
      } catch {
        json = undefined;
      }
      return { status: res.status, json, retryAfterS: Number(res.headers.get('retry-after') ?? 0) };
    } catch {
      return { status: 0, json: undefined, retryAfterS: 0 };
    }
  }
}
