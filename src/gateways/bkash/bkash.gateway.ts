import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../common/clock/clock';
import { AppConfig } from '../../config/app-config';
import { GatewayCredentialsService } from '../credentials/gateway-credentials.service';
import { GatewayAdapter } from '../gateway-adapter.decorator';
import { GatewayHttp } from '../http/gateway-http';
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
  StatusQueryCapability,
  VerifiedStatus,
} from '../payment-gateway.types';
import { fromTaka, toTaka } from '../http/taka';

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
  merchantInvoiceNumber?: string;
  customerMsisdn?: string;
  refundTrxID?: string;
  id_token?: string;
  refresh_token?: string;
  expires_in?: number | string;
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
/** Codes for which trying again later may succeed (system errors). */
const RETRYABLE = new Set(['9999', '503']);

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
  private readonly logger = new Logger('bKash');
  private readonly http: GatewayHttp;

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

  /** A valid id_token: the stored one, else refreshed, else granted anew (no transaction open). */
  private async token(ctx: GatewayContext): Promise<string> {
    const now = this.clock.nowMs();
    const stored = await this.credentials.token<Token>(ctx, this.name, now, 60_000);
    if (stored) return stored.idToken;
    const c = this.creds(ctx);
    const old = await this.credentials.anyToken<Token>(ctx, this.name);
    const answer = old
      ? await this.call(
          ctx,
          'token/refresh',
          {
            app_key: c.appKey,
            app_secret: c.appSecret,
            refresh_token: old.refreshToken,
          },
          { username: c.username, password: c.password },
          true,
        ).catch(() => null)
      : null;
    const granted = answer?.id_token
      ? answer
      : await this.call(
          ctx,
          'token/grant',
          { app_key: c.appKey, app_secret: c.appSecret },
          { username: c.username, password: c.password },
          true,
        );
    if (!granted.id_token)
      throw new BkashError(granted.statusCode ?? '?', 'no token granted', true);
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
    });
    const code = answer.statusCode ?? answer.errorCode;
    if (code !== undefined && code !== '0000') {
      throw new BkashError(
        code,
        answer.statusMessage ?? answer.errorMessage ?? 'error',
        RETRYABLE.has(code),
      );
    }
    if (code === undefined && !answer.id_token)
      throw new BkashError('?', 'an answer without a statusCode', true);
    return answer;
  }

  private async authed(
    ctx: GatewayContext,
    path: string,
    body: Record<string, string>,
    idempotent: boolean,
  ): Promise<BkashAnswer> {
    const c = this.creds(ctx);
    return this.call(
      ctx,
      path,
      body,
      { authorization: await this.token(ctx), 'x-app-key': c.appKey },
      idempotent,
    );
  }

  async createCheckout(req: CheckoutRequest, ctx: GatewayContext): Promise<CheckoutSession> {
    const answer = await this.authed(
      ctx,
      'create',
      {
        mode: '0011',
        payerReference: req.customer.phone || req.customer.reference,
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
   * The customer's return (`?paymentID=&status=success|failure|cancel`).
   * success: execute (the capture), then believe what execute or the
   * status query says; failure / cancel: the status query decides (a
   * Completed payment is a capture whatever the return said).
   */
  async verifyConfirmation(
    payload: Record<string, unknown>,
    ctx: GatewayContext,
  ): Promise<VerifiedStatus | null> {
    const paymentID = String(payload.paymentID);
    if (payload.status === 'success') return this.executeThenStatus(paymentID, ctx, true);
    const status = await this.askStatus(paymentID, ctx);
    if (status && status.outcome === 'open' && payload.status === 'cancel')
      return { ...status, outcome: 'cancelled' };
    if (status && status.outcome === 'open' && payload.status === 'failure')
      return { ...status, outcome: 'failed' };
    return status;
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
   * execute (the capture), believed as the status query would be; refused
   * ("already executed", not authorized, a forged return...): what the
   * status query says, nothing more. A system error or no answer throws.
   */
  private async executeThenStatus(
    paymentID: string,
    ctx: GatewayContext,
    customerSaidPaid: boolean,
  ): Promise<VerifiedStatus | null> {
    try {
      return this.toStatus(paymentID, await this.authed(ctx, 'execute', { paymentID }, false));
    } catch (err) {
      if (!(err instanceof BkashError) || (err.retryable && !ALREADY_EXECUTED.has(err.code)))
        throw err;
      // Refused after the customer's "success": worth a line (not paid yet, or forged).
      if (customerSaidPaid && !ALREADY_EXECUTED.has(err.code))
        this.logger.warn(`execute of ${paymentID} refused: ${err.code}`);
    }
    return this.askStatus(paymentID, ctx);
  }

  private async askStatus(paymentID: string, ctx: GatewayContext): Promise<VerifiedStatus | null> {
    const answer = await this.authed(ctx, 'payment/status', { paymentID }, true);
    return this.toStatus(paymentID, answer);
  }

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
      return this.toRefund(answer);
    } catch (err) {
      if (err instanceof BkashError && !err.retryable) return { refundId: '', status: 'failed' };
      throw err;
    }
  }

  private toRefund(answer: BkashAnswer): GatewayRefund {
    const refundId = answer.refundTrxID ?? '';
    if (answer.transactionStatus === 'Completed') return { refundId, status: 'succeeded' };
    if (answer.transactionStatus === 'Failed') return { refundId, status: 'failed' };
    return { refundId, status: 'pending' };
  }

  private toStatus(paymentID: string, a: BkashAnswer): VerifiedStatus {
    const outcome = OUTCOME[a.transactionStatus ?? ''] ?? 'open';
    return {
      sessionId: paymentID,
      reference: a.merchantInvoiceNumber ?? '',
      outcome,
      amountMinor: fromTaka(a.amount) ?? -1,
      currency: a.currency ?? '',
      txnId: a.trxID ?? null,
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
