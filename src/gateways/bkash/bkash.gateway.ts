import { Injectable, Logger } from '@nestjs/common';

import { Clock } from '../../common/clock/clock';
import { AppConfig } from '../../config/app-config';
import { GatewayCredentialsService } from '../credentials/gateway-credentials.service';
import { GatewayAdapter } from '../gateway-adapter.decorator';
import { GatewayHttp, GatewayHttpError } from '../http/gateway-http';
import { fromTaka, toTaka } from '../http/taka';
import type {
  CallbackSubject,
  CheckoutCapability,
  CheckoutRef,
  CheckoutRequest,
  CheckoutSession,
  GatewayContext,
  GatewayOutcome,
  GatewayRefund,
  PaymentGateway,
  RefundCapability,
  RefundQuery,
  StatusQueryCapability,
  VerifiedStatus,
} from '../payment-gateway.types';

interface Token {
  idToken: string;
  refreshToken: string;
}

interface BkashAnswer {
  statusCode?: string;
  statusMessage?: string;
  errorCode?: string;
  errorMessage?: string;
  paymentID?: string;
  bkashURL?: string;
  trxID?: string;
  transactionStatus?: string;
  amount?: string;
  currency?: string;
  /** create and execute answers name the merchant's invoice so... */
  merchantInvoiceNumber?: string;
  /** ...and the query-payment answer so (decisions section 19). */
  merchantInvoice?: string;
  customerMsisdn?: string;
  refundTrxID?: string;
  refundTransactions?: BkashRefundItem[];
  id_token?: string;
  refresh_token?: string;
  expires_in?: number | string;
}

interface BkashRefundItem {
  refundTrxID?: string;
  transactionStatus?: string;
  amount?: string;
  sku?: string;
}

/** bKash's transactionStatus words. */
const OUTCOME: Record<string, GatewayOutcome> = {
  Completed: 'captured',
  Initiated: 'open',
  Inprogress: 'open',
  Pending: 'open',
  Authorized: 'open',
  Failed: 'failed',
  Cancelled: 'cancelled',
  Expired: 'cancelled',
  Declined: 'failed',
};

/** Codes that mean "this payment was already executed": ask its status instead. */
const ALREADY_EXECUTED = new Set(['2062', '2117']);
/**
 * bKash's answer to a refund status of a transaction that has no refund:
 * an error ("otherwise invalid payment id will return", bKash's own
 * WooCommerce plugin), not an empty list; 2002 is "Invalid Payment ID"
 * (decisions section 19; test/fixtures/gateways/bkash/refund-status.*).
 */
const NO_REFUND_YET = new Set(['2002']);
/** Codes for which trying again later may succeed (system errors). */
const RETRYABLE = new Set(['9999', '503']);

/** How long one replica may take to grant or refresh a token before another may try. */
const TOKEN_LEASE_MS = 45_000;
/** How long a caller waits for a token another replica is asking for. */
const TOKEN_WAIT_MS = 40_000;
const TOKEN_POLL_MS = 100;
/** bKash's answer when the token is not (or no longer) valid. */
const INVALID_TOKEN = new Set(['2079']);

class TokenRefused extends Error {}

/** Token calls are backing off after bKash failed them: nothing is sent to bKash meanwhile. */
export class BkashBackingOff extends Error {
  constructor(readonly until: Date) {
    super(
      `bkash is not answering token requests; no call to bKash until ${until.toISOString()} (back-off)`,
    );
  }
}

const tokenRefused = (err: unknown): boolean =>
  (err instanceof GatewayHttpError && err.httpStatus === 401) ||
  (err instanceof BkashError && INVALID_TOKEN.has(err.code));

/** A bKash error answer as an exception (never with credentials in it). */
export class BkashError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryable: boolean,
  ) {
    super(`bkash ${code}: ${message}`);
  }
}

/**
 * bKash tokenized checkout v1.2.0-beta: grant / refresh token (cached per
 * app and mode in the database, shared by replicas), create, execute on the
 * customer's return, status query, refund and refund status. bKash answers
 * errors with HTTP 200 and a statusCode; every documented code maps to a
 * payment outcome or a retryable error. A return is believed only after
 * execute (or the status query) says Completed with the payment's amount,
 * currency and invoice number.
 */
@Injectable()
@GatewayAdapter()
export class BkashGateway
  implements PaymentGateway, CheckoutCapability, StatusQueryCapability, RefundCapability
{
  readonly name = 'bkash';
  readonly modes = ['TEST', 'LIVE'] as const;
  readonly credentialFields = ['appKey', 'appSecret', 'username', 'password'] as const;
  readonly checkout = this;
  readonly statusQuery = this;
  readonly refunds = this;
  /**
   * bKash refunds a transaction "no older than 15 days" (its own WooCommerce
   * plugin; error 2071 "Refund after specified days not allowed").
   */
  readonly refundWindowDays = 15;
  private readonly logger = new Logger('bKash');
  private readonly http: GatewayHttp;
  /** This process's token calls in flight, per app and mode (the single flight). */
  private readonly tokenFlights = new Map<string, Promise<string>>();

  constructor(
    private readonly config: AppConfig,
    private readonly credentials: GatewayCredentialsService,
    private readonly clock: Clock,
  ) {
    this.http = new GatewayHttp('bkash', config.gatewayTimeoutMs);
  }

  private url(ctx: GatewayContext, path: string): URL {
    const base = ctx.mode === 'LIVE' ? this.config.bkashLiveUrl : this.config.bkashSandboxUrl;
    return new URL(`${base.replace(/\/$/, '')}/tokenized/checkout/${path}`);
  }

  private creds(ctx: GatewayContext) {
    const c = ctx.credentials;
    if (!c?.appKey || !c.appSecret || !c.username || !c.password)
      throw new Error(`bkash: app ${ctx.appId} has no ${ctx.mode} credentials`);
    return { appKey: c.appKey, appSecret: c.appSecret, username: c.username, password: c.password };
  }

  /**
   * A valid id_token (decisions section 11): the stored one; else one grant
   * or refresh at a time per app and mode: in this process every caller
   * waits on the same promise, across replicas the database lease decides
   * who calls bKash while the others wait for the token it stores.
   */
  private token(ctx: GatewayContext): Promise<string> {
    const key = `${ctx.appId}:${ctx.mode}`;
    let pending = this.tokenFlights.get(key);
    if (!pending) {
      // Shared by every caller waiting: not bound to the first one's deadline.
      pending = this.obtainToken({ ...ctx, signal: undefined }).finally(() =>
        this.tokenFlights.delete(key),
      );
      this.tokenFlights.set(key, pending);
    }
    return pending;
  }

  private async obtainToken(ctx: GatewayContext): Promise<string> {
    const started = Date.now();
    for (;;) {
      const now = this.clock.nowMs();
      const stored = await this.credentials.token<Token>(ctx, this.name, now, 60_000);
      if (stored) return stored.idToken;
      // bKash is failing: no token call until the back-off step is over (decisions section 19).
      const backoff = await this.credentials.tokenBackoff(ctx, this.name, now);
      if (backoff) throw new BkashBackingOff(backoff);
      if (await this.credentials.leaseToken(ctx, this.name, now, TOKEN_LEASE_MS)) {
        try {
          return await this.grantOrRefresh(ctx, now);
        } finally {
          await this.credentials.releaseTokenLease(ctx, this.name);
        }
      }
      // Another replica is asking bKash: its token appears in the database.
      if (Date.now() - started > TOKEN_WAIT_MS)
        throw new BkashError('?', 'no token: another replica is still asking bKash for one', true);
      await new Promise((r) => setTimeout(r, TOKEN_POLL_MS));
    }
  }

  /**
   * The one grant or refresh call (the caller holds the lease); stores what
   * bKash gave. Exactly one call: never sent again by the HTTP layer, and a
   * failed refresh is not followed by a grant. A failure starts (or
   * lengthens) the back-off; a refresh bKash refuses is forgotten, so the
   * next step grants.
   */
  private async grantOrRefresh(ctx: GatewayContext, now: number): Promise<string> {
    const c = this.creds(ctx);
    const old = await this.credentials.anyToken<Token>(ctx, this.name);
    const user = { username: c.username, password: c.password };
    const refreshing = Boolean(old?.refreshToken);
    let granted: BkashAnswer;
    try {
      granted = refreshing
        ? await this.call(
            ctx,
            'token/refresh',
            { app_key: c.appKey, app_secret: c.appSecret, refresh_token: old!.refreshToken },
            user,
            false,
          )
        : await this.call(
            ctx,
            'token/grant',
            { app_key: c.appKey, app_secret: c.appSecret },
            user,
            false,
          );
      if (!granted.id_token)
        throw new BkashError(granted.statusCode ?? '?', 'no token granted', true);
    } catch (err) {
      const until = await this.credentials.noteTokenFailure(ctx, this.name, this.clock.nowMs());
      if (refreshing && err instanceof BkashError && !err.retryable)
        await this.credentials.discardToken(ctx, this.name, () => true);
      this.logger.warn(
        `app ${ctx.appId} ${ctx.mode}: bKash ${refreshing ? 'refresh' : 'grant'} failed (${(err as Error).message}); no token call until ${until.toISOString()}`,
      );
      throw err;
    }
    const token: Token = {
      idToken: granted.id_token,
      refreshToken: granted.refresh_token ?? old?.refreshToken ?? '',
    };
    const ttl = Number(granted.expires_in ?? 3600) * 1000;
    await this.credentials.saveToken(ctx, this.name, token, new Date(now + ttl));
    return token.idToken;
  }

  /** One bKash call; error status codes become BkashError (retryable or not). */
  private async call(
    ctx: GatewayContext,
    path: string,
    body: Record<string, string>,
    headers: Record<string, string>,
    idempotent: boolean,
  ): Promise<BkashAnswer> {
    const answer = await this.http.json<BkashAnswer>({
      method: 'POST',
      url: this.url(ctx, path),
      json: body,
      headers,
      idempotent,
      signal: ctx.signal,
    });
    // Errors come as statusCode/statusMessage or errorCode/errorMessage, with
    // HTTP 200 or another status (decisions section 19).
    const code = answer.statusCode ?? answer.errorCode;
    if (code !== undefined && String(code) !== '0000') {
      throw new BkashError(
        String(code),
        answer.statusMessage ?? answer.errorMessage ?? 'error',
        RETRYABLE.has(String(code)),
      );
    }
    if (code === undefined && !statesSomething(answer))
      throw new BkashError('?', 'an answer that states neither a result nor an error', true);
    return answer;
  }

  /**
   * A call with the app's token. bKash refusing the token (HTTP 401, or its
   * invalid-token code) discards it, grants once more and retries once: a
   * refused token means the request was not processed.
   */
  private async authed(
    ctx: GatewayContext,
    path: string,
    body: Record<string, string>,
    idempotent: boolean,
  ): Promise<BkashAnswer> {
    const c = this.creds(ctx);
    const once = async () => {
      const token = await this.token(ctx);
      try {
        return await this.call(
          ctx,
          path,
          body,
          { authorization: token, 'x-app-key': c.appKey },
          idempotent,
        );
      } catch (err) {
        if (!tokenRefused(err)) throw err;
        await this.credentials.discardToken(
          ctx,
          this.name,
          (stored) => (stored as Token).idToken === token,
        );
        throw new TokenRefused();
      }
    };
    try {
      return await once();
    } catch (err) {
      if (!(err instanceof TokenRefused)) throw err;
      this.logger.warn(`app ${ctx.appId} ${ctx.mode}: bKash refused the token; granting once more`);
      return once().catch((again: unknown) => {
        throw again instanceof TokenRefused
          ? new BkashError('2079', 'bKash refused a freshly granted token', false)
          : again;
      });
    }
  }

  async createCheckout(req: CheckoutRequest, ctx: GatewayContext): Promise<CheckoutSession> {
    const answer = await this.authed(
      ctx,
      'create',
      {
        mode: '0011',
        payerReference: payerReference(req.customer),
        callbackURL: req.returnUrl,
        amount: toTaka(req.amountMinor),
        currency: req.currency,
        intent: 'sale',
        merchantInvoiceNumber: req.reference,
      },
      false,
    );
    if (!answer.paymentID || !answer.bkashURL)
      throw new BkashError(answer.statusCode ?? '?', 'no paymentID in the create answer', false);
    return { sessionId: answer.paymentID, checkoutUrl: answer.bkashURL };
  }

  subjectOf(payload: Record<string, unknown>): CallbackSubject | null {
    return typeof payload.paymentID === 'string' && payload.paymentID
      ? { sessionId: payload.paymentID }
      : null;
  }

  /**
   * The customer's return (`?paymentID=&status=success|failure|cancel`) is
   * a hint (decisions section 11): whatever it says, bKash is asked, as the
   * sweep would (execute, then the status query), and only its answer
   * counts. A payment the customer authorised is captured even when the
   * return says cancel; one bKash still calls Initiated stays PENDING.
   */
  verifyConfirmation(
    payload: Record<string, unknown>,
    ctx: GatewayContext,
  ): Promise<VerifiedStatus | null> {
    return this.executeThenStatus(String(payload.paymentID), ctx, payload.status === 'success');
  }

  /**
   * bKash captures only when Joma executes: a payment the customer
   * authorized (PIN entered on bKash's page) stays `Initiated` in the status
   * query until then. So asking about a payment (the expiry sweep, the pay
   * button's look at earlier checkouts, a customer waiting on the status
   * page) executes first, as the return would have: a return that never
   * reached Joma (browser closed) or found bKash unreachable still captures
   * once bKash answers. Not authorized: execute is refused, the status
   * decides.
   */
  queryStatus(checkout: CheckoutRef, ctx: GatewayContext): Promise<VerifiedStatus | null> {
    return this.executeThenStatus(checkout.sessionId, ctx, false);
  }

  /**
   * execute (the capture), believed as the status query would be. Refused
   * ("already executed", not authorized, a forged return...), or its answer
   * lost or unclear (a timeout, a 5xx, garbage: it may have captured): what
   * the status query says, nothing more. Throws only when the status query
   * cannot answer either.
   */
  private async executeThenStatus(
    paymentID: string,
    ctx: GatewayContext,
    customerSaidPaid: boolean,
  ): Promise<VerifiedStatus | null> {
    let refusal: BkashError | null = null;
    try {
      return this.toStatus(paymentID, await this.authed(ctx, 'execute', { paymentID }, false));
    } catch (err) {
      if (err instanceof BkashBackingOff || ctx.signal?.aborted) throw err;
      if (err instanceof BkashError && !err.retryable && !ALREADY_EXECUTED.has(err.code)) {
        refusal = err;
        // Refused after the customer's "success": worth a line (not paid yet, or forged).
        if (customerSaidPaid) this.logger.warn(`execute of ${paymentID} refused: ${err.code}`);
      } else if (!(err instanceof BkashError && ALREADY_EXECUTED.has(err.code))) {
        this.logger.warn(
          `execute of ${paymentID} got no clear answer (${(err as Error).message}); asking bKash's status`,
        );
      }
    }
    return this.askStatus(paymentID, ctx, refusal);
  }

  private async askStatus(
    paymentID: string,
    ctx: GatewayContext,
    refusal: BkashError | null = null,
  ): Promise<VerifiedStatus | null> {
    const answer = await this.authed(ctx, 'payment/status', { paymentID }, true);
    return this.toStatus(paymentID, answer, refusal);
  }

  /**
   * The refund API (several partial refunds per transaction are allowed).
   * `sku` carries Joma's refund reference so the refund status can tell this
   * refund from the transaction's others. Never retried here.
   */
  async refund(
    req: {
      sessionId: string;
      txnId: string;
      amountMinor: number;
      reference: string;
      reason?: string | null;
    },
    ctx: GatewayContext,
  ): Promise<GatewayRefund> {
    try {
      const answer = await this.authed(
        ctx,
        'payment/refund',
        {
          paymentID: req.sessionId,
          trxID: req.txnId,
          amount: toTaka(req.amountMinor),
          sku: req.reference,
          reason: (req.reason || 'Refund').slice(0, 255),
        },
        false,
      );
      const item = this.refundItems(answer).items[0];
      if (!item) throw new BkashError('?', 'a refund answer without a refund', true);
      return this.toRefund(item);
    } catch (err) {
      if (err instanceof BkashError && !err.retryable && err.code !== '?')
        return { refundId: '', status: 'failed', failureReason: err.message };
      throw err;
    }
  }

  /**
   * The refund status (the refund API with the transaction alone): the
   * transaction's refunds. Ours is the one with our gateway id, else our sku,
   * else (bKash not echoing sku) the only refund of our amount that none of
   * the payment's other refunds claims. None at all: no such refund (null).
   * Anything it cannot tell apart throws (asked again, never re-sent).
   */
  async queryRefund(req: RefundQuery, ctx: GatewayContext): Promise<GatewayRefund | null> {
    let listed: { items: BkashRefundItem[]; complete: boolean };
    try {
      listed = this.refundItems(
        await this.authed(
          ctx,
          'payment/refund',
          { paymentID: req.sessionId, trxID: req.txnId },
          true,
        ),
      );
    } catch (err) {
      // bKash's documented answer for a transaction with no refund at all.
      if (err instanceof BkashError && NO_REFUND_YET.has(err.code) && !req.gatewayRefundId)
        return null;
      throw err;
    }
    const { items, complete } = listed;
    const byId = req.gatewayRefundId
      ? items.find((r) => r.refundTrxID === req.gatewayRefundId)
      : undefined;
    const bySku = items.find((r) => r.sku === req.reference);
    const unclaimed = items.filter(
      (r) =>
        !req.otherRefundIds.includes(r.refundTrxID ?? '') &&
        r.sku === undefined &&
        fromTaka(r.amount) === req.amountMinor,
    );
    const mine = byId ?? bySku ?? (unclaimed.length === 1 ? unclaimed[0] : undefined);
    if (mine) return this.toRefund(mine);
    // "No such refund" only from a complete list with nothing that could be
    // ours: one refund's answer, or one without a list, says nothing of the others.
    if (complete && !req.gatewayRefundId && unclaimed.length === 0) return null;
    throw new BkashError('?', `cannot tell what became of refund ${req.reference}`, true);
  }

  /** The refunds an answer describes: a list (`refundTransactions`) or one refund. */
  private refundItems(answer: BkashAnswer): { items: BkashRefundItem[]; complete: boolean } {
    if (Array.isArray(answer.refundTransactions))
      return { items: answer.refundTransactions, complete: true };
    return { items: answer.refundTrxID ? [answer as BkashRefundItem] : [], complete: false };
  }

  private toRefund(item: BkashRefundItem): GatewayRefund {
    const refundId = item.refundTrxID ?? '';
    if (item.transactionStatus === 'Completed') return { refundId, status: 'succeeded' };
    if (item.transactionStatus === 'Failed')
      return { refundId, status: 'failed', failureReason: 'bkash refund Failed' };
    return { refundId, status: 'pending' };
  }

  /**
   * A status as bKash states it. The invoice is `merchantInvoiceNumber` in
   * create and execute answers and `merchantInvoice` in the status query's;
   * a field left out is no difference (decisions section 19). A failure
   * carries bKash's own words: execute's refusal, else the status.
   */
  private toStatus(
    paymentID: string,
    a: BkashAnswer,
    refusal: BkashError | null = null,
  ): VerifiedStatus {
    const outcome = OUTCOME[a.transactionStatus ?? ''] ?? 'open';
    return {
      sessionId: paymentID,
      reference: a.merchantInvoiceNumber ?? a.merchantInvoice ?? '',
      outcome,
      amountMinor: fromTaka(a.amount),
      currency: a.currency ?? '',
      txnId: a.trxID ?? null,
      failureReason:
        outcome === 'failed'
          ? `${refusal ? refusal.message : 'bkash'} (transactionStatus ${a.transactionStatus})`
          : null,
      method:
        outcome === 'captured'
          ? {
              type: 'bkash',
              label: a.customerMsisdn ? `bKash ${a.customerMsisdn}` : 'bKash',
              brand: 'bKash',
              issuer: 'bKash',
              account: a.customerMsisdn ?? null,
            }
          : undefined,
    };
  }
}

/** Whether an answer without a status code states a result (a token, a payment, a refund). */
function statesSomething(a: BkashAnswer): boolean {
  return Boolean(
    a.id_token ||
    a.paymentID ||
    a.transactionStatus ||
    a.refundTrxID ||
    Array.isArray(a.refundTransactions),
  );
}

/**
 * bKash pre-fills the payer's wallet from `payerReference` when it is a
 * wallet number as Bangladeshis write it (`01XXXXXXXXX`); Joma keeps phones
 * as +8801XXXXXXXXX. Without a phone, the customer's reference.
 */
export function payerReference(customer: { reference: string; phone?: string | null }): string {
  const wallet = /^(?:\+?88)?(01[3-9]\d{8})$/.exec((customer.phone ?? '').replace(/[\s-]/g, ''));
  return wallet ? wallet[1] : customer.reference;
}
