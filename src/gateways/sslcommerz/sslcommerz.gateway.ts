import { createHash, timingSafeEqual } from 'node:crypto';

import { Injectable, Logger } from '@nestjs/common';

import { AppConfig } from '../../config/app-config';
import { GatewayAdapter } from '../gateway-adapter.decorator';
import { GatewayHttp } from '../http/gateway-http';
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

/** SSLCommerz's status words, as its validation and transaction-query APIs use them. */
const OUTCOME: Record<string, GatewayOutcome> = {
  VALID: 'captured',
  VALIDATED: 'captured',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
  UNATTEMPTED: 'open',
  EXPIRED: 'open',
  PENDING: 'open',
};

interface ValidationAnswer {
  status?: string;
  tran_id?: string;
  val_id?: string;
  amount?: string;
  currency?: string;
  bank_tran_id?: string;
  card_type?: string;
  card_no?: string;
  /** 0: safe, 1: high risk (the capture stands; the merchant reviews it). */
  risk_level?: string | number;
  risk_title?: string;
  /** Why an attempt failed, in SSLCommerz's words ("Invalid expiration date"). */
  error?: string;
  card_issuer?: string;
  card_brand?: string;
}

interface RefundAnswer {
  APIConnect?: string;
  status?: string;
  refund_ref_id?: string;
  errorReason?: string;
}

const md5 = (s: string) => createHash('md5').update(s, 'utf8').digest('hex');

/**
 * SSLCommerz v4 hosted checkout (https://developer.sslcommerz.com/doc/v4/).
 * Session API to open a checkout; the IPN and the browser's success / fail /
 * cancel posts are believed only after their `verify_sign` (an MD5 over the
 * fields `verify_key` lists plus md5(store_passwd)) checks out and the
 * validation API (by `val_id`) or the transaction query (by `tran_id`)
 * confirms status, amount and currency. Refunds through the refund API.
 * TEST mode uses the sandbox host, LIVE the live one.
 */
@Injectable()
@GatewayAdapter()
export class SslcommerzGateway
  implements PaymentGateway, CheckoutCapability, StatusQueryCapability, RefundCapability
{
  readonly name = 'sslcommerz';
  readonly modes = ['TEST', 'LIVE'] as const;
  readonly credentialFields = ['storeId', 'storePassword'] as const;
  /** SSLCommerz takes 10 to 500,000 BDT per transaction: checked before a checkout is asked for. */
  readonly limits = { minMinor: 1_000, maxMinor: 50_000_000 };
  readonly checkout = this;
  readonly statusQuery = this;
  readonly refunds = this;
  private readonly logger = new Logger('SSLCommerz');
  private readonly http: GatewayHttp;

  constructor(private readonly config: AppConfig) {
    this.http = new GatewayHttp('sslcommerz', config.gatewayTimeoutMs);
  }

  private host(ctx: GatewayContext): string {
    return ctx.mode === 'LIVE' ? this.config.sslcommerzLiveUrl : this.config.sslcommerzSandboxUrl;
  }

  /** An API path under the mode's host (which may itself have a path: a simulator's mount). */
  private endpoint(ctx: GatewayContext, path: string): URL {
    return new URL(`${this.host(ctx).replace(/\/+$/, '')}${path}`);
  }

  private creds(ctx: GatewayContext): { storeId: string; storePassword: string } {
    const c = ctx.credentials;
    if (!c?.storeId || !c?.storePassword)
      throw new Error(`sslcommerz: app ${ctx.appId} has no ${ctx.mode} credentials`);
    return { storeId: c.storeId, storePassword: c.storePassword };
  }

  async createCheckout(req: CheckoutRequest, ctx: GatewayContext): Promise<CheckoutSession> {
    const { storeId, storePassword } = this.creds(ctx);
    const answer = await this.http.json<{
      status?: string;
      failedreason?: string;
      sessionkey?: string;
      GatewayPageURL?: string;
    }>({
      method: 'POST',
      url: this.endpoint(ctx, '/gwprocess/v4/api.php'),
      idempotent: false,
      form: {
        store_id: storeId,
        store_passwd: storePassword,
        total_amount: toTaka(req.amountMinor),
        currency: req.currency,
        tran_id: req.reference,
        success_url: req.returnUrl,
        fail_url: req.returnUrl,
        cancel_url: req.returnUrl,
        ipn_url: req.ipnUrl,
        cus_name: req.customer.name || req.customer.reference,
        cus_email: req.customer.email || 'customer@example.com',
        cus_phone: req.customer.phone || '01700000000',
        // No address: Joma keeps none, and SSLCommerz scores risk on what it is
        // sent, so none is made up (the official library calls these "not
        // mandatory but useful"; docs/gateways.md lists it to check in the sandbox).
        shipping_method: 'NO',
        num_of_item: '1',
        product_name: (req.description || `Payment to ${req.merchantName}`).slice(0, 255),
        product_category: 'general',
        product_profile: 'general',
      },
    });
    if (answer.status !== 'SUCCESS' || !answer.sessionkey || !answer.GatewayPageURL) {
      throw new Error(
        `sslcommerz refused the checkout: ${answer.failedreason ?? 'no reason given'}`,
      );
    }
    return { sessionId: answer.sessionkey, checkoutUrl: answer.GatewayPageURL };
  }

  subjectOf(payload: Record<string, unknown>): CallbackSubject | null {
    return typeof payload.tran_id === 'string' && payload.tran_id
      ? { reference: payload.tran_id }
      : null;
  }

  async verifyConfirmation(
    payload: Record<string, unknown>,
    ctx: GatewayContext,
  ): Promise<VerifiedStatus | null> {
    const { storePassword } = this.creds(ctx);
    if (!this.signatureHolds(payload, storePassword)) {
      this.logger.warn(`Callback for ${String(payload.tran_id)} has no valid verify_sign; ignored`);
      return null;
    }
    const reference = String(payload.tran_id);
    if (typeof payload.val_id === 'string' && payload.val_id) {
      const v = await this.validate(payload.val_id, ctx);
      if (!v || v.tran_id !== reference) return null;
      return this.toStatus(v, reference);
    }
    return this.queryStatus({ sessionId: '', reference }, ctx);
  }

  /**
   * The transaction query by tran_id. SSLCommerz keeps one element per
   * attempt (a customer may fail, then pay): a valid capture wins, else the
   * latest attempt's status.
   */
  async queryStatus(checkout: CheckoutRef, ctx: GatewayContext): Promise<VerifiedStatus | null> {
    const url = this.api(ctx, { tran_id: checkout.reference });
    const answer = await this.http.json<{
      APIConnect?: string;
      no_of_trans_found?: number | string;
      element?: ValidationAnswer[];
    }>({ method: 'GET', url, idempotent: true, signal: ctx.signal });
    if (answer.APIConnect !== 'DONE') throw new Error(`sslcommerz query: ${answer.APIConnect}`);
    const elements = (answer.element ?? []).filter((e) => e.tran_id === checkout.reference);
    if (elements.length === 0)
      return {
        sessionId: checkout.sessionId,
        reference: checkout.reference,
        outcome: 'open',
        amountMinor: 0,
        currency: '',
      };
    const captured = elements.find((e) => OUTCOME[e.status ?? ''] === 'captured');
    if (captured?.val_id) {
      // A capture is only believed as the validation API states it.
      const v = await this.validate(captured.val_id, ctx);
      if (v && v.tran_id === checkout.reference) return this.toStatus(v, checkout.reference);
    }
    return this.toStatus(elements[elements.length - 1], checkout.reference, true);
  }

  /**
   * The refund API, as the official `sslcommerz-lts` package calls it
   * (`bank_tran_id`, `refund_amount`, `refund_remarks`, `refe_id` carrying
   * Joma's refund reference). Its `success` means *initiated*: the refund
   * stays PENDING until the refund query by the `refund_ref_id` it gives
   * says `refunded` (decisions sections 7 and 19). Never retried here: a
   * second request could refund twice.
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
    const answer = await this.http.json<RefundAnswer>({
      method: 'GET',
      url: this.api(ctx, {
        bank_tran_id: req.txnId,
        refund_amount: toTaka(req.amountMinor),
        refund_remarks: (req.reason || 'Refund').slice(0, 255),
        refe_id: req.reference,
        v: '1',
      }),
      idempotent: false,
      signal: ctx.signal,
    });
    const status = (answer.status ?? '').toLowerCase();
    // A refusal is definite with or without APIConnect (the published `failed` answer has none).
    if (answer.APIConnect !== 'DONE' && status !== 'failed')
      throw new Error(`sslcommerz refund: ${answer.APIConnect ?? 'no APIConnect'}`);
    if (status === 'success' || status === 'processing')
      return { refundId: answer.refund_ref_id ?? '', status: 'pending' };
    if (status === 'failed')
      return {
        refundId: answer.refund_ref_id ?? '',
        status: 'failed',
        failureReason: `sslcommerz ${answer.errorReason || 'refused the refund'}`,
      };
    throw new Error(`sslcommerz refund: an answer with status "${answer.status ?? ''}"`);
  }

  /**
   * The refund query, by the `refund_ref_id` SSLCommerz gave when it took
   * the refund: `refunded` is done, `processing` not yet, `cancelled`
   * refused. No published query finds a refund by Joma's own reference, so
   * a refund whose first answer was lost (no `refund_ref_id`) can never be
   * shown absent: it is "unknown", never re-sent, and waits PENDING for the
   * settlement import, an operator or section 7's 72 hours (decisions
   * section 19). Any answer without a known status is unknown too (throws).
   */
  async queryRefund(req: RefundQuery, ctx: GatewayContext): Promise<GatewayRefund | null> {
    if (!req.gatewayRefundId)
      throw new Error(
        `sslcommerz refund query: refund ${req.reference} has no refund_ref_id (its answer was lost); SSLCommerz publishes no query by the merchant's reference, so it is not sent again`,
      );
    const answer = await this.http.json<RefundAnswer>({
      method: 'GET',
      url: this.api(ctx, { refund_ref_id: req.gatewayRefundId }),
      idempotent: true,
      signal: ctx.signal,
    });
    if (answer.APIConnect !== 'DONE')
      throw new Error(`sslcommerz refund query: ${answer.APIConnect ?? 'no APIConnect'}`);
    const refundId = answer.refund_ref_id || req.gatewayRefundId;
    const status = (answer.status ?? '').toLowerCase();
    if (status === 'refunded') return { refundId, status: 'succeeded' };
    if (status === 'processing' || status === 'initiated') return { refundId, status: 'pending' };
    if (status === 'cancelled')
      return {
        refundId,
        status: 'failed',
        failureReason: `sslcommerz ${answer.errorReason || 'cancelled the refund'}`,
      };
    throw new Error(`sslcommerz refund query: an answer with status "${answer.status ?? ''}"`);
  }

  /** The validator host's transaction/refund API URL, with the store's credentials. */
  private api(ctx: GatewayContext, params: Record<string, string>): URL {
    const { storeId, storePassword } = this.creds(ctx);
    const url = this.endpoint(ctx, '/validator/api/merchantTransIDvalidationAPI.php');
    url.search = new URLSearchParams({
      ...params,
      store_id: storeId,
      store_passwd: storePassword,
      format: 'json',
    }).toString();
    return url;
  }

  private async validate(valId: string, ctx: GatewayContext): Promise<ValidationAnswer | null> {
    const { storeId, storePassword } = this.creds(ctx);
    const url = this.endpoint(ctx, '/validator/api/validationserverAPI.php');
    url.search = new URLSearchParams({
      val_id: valId,
      store_id: storeId,
      store_passwd: storePassword,
      v: '1',
      format: 'json',
    }).toString();
    const v = await this.http.json<ValidationAnswer>({
      method: 'GET',
      url,
      idempotent: true,
      signal: ctx.signal,
    });
    return v.status === 'VALID' || v.status === 'VALIDATED' ? v : null;
  }

  private toStatus(v: ValidationAnswer, reference: string, unvalidated = false): VerifiedStatus {
    const outcome = OUTCOME[v.status ?? ''] ?? 'open';
    const amount = fromTaka(v.amount);
    return {
      sessionId: '',
      reference,
      // A capture the validation API did not state is not believed.
      outcome: unvalidated && outcome === 'captured' ? 'open' : outcome,
      amountMinor: amount,
      currency: v.currency ?? '',
      txnId: v.bank_tran_id ?? null,
      riskLevel: String(v.risk_level ?? '0') === '1' ? 'HIGH' : 'NORMAL',
      failureReason:
        outcome === 'failed' ? `sslcommerz ${v.status}${v.error ? `: ${v.error}` : ''}` : null,
      // A declined attempt: the payer may try again in the same session.
      attemptOnly: outcome === 'failed',
      method:
        outcome === 'captured'
          ? {
              type: v.card_type ?? null,
              label: [v.card_brand, v.card_no].filter(Boolean).join(' ') || null,
              brand: v.card_brand ?? null,
              issuer: v.card_issuer ?? null,
              account: v.card_no ?? null,
            }
          : undefined,
    };
  }

  /**
   * SSLCommerz's callback signature: the fields named in verify_key plus
   * store_passwd=md5(password), sorted by name, joined as k=v&k=v, MD5'd.
   * A verify_key naming store_passwd is refused: the sender would set that
   * value, and so the whole signature. So is one that leaves out a field
   * Joma relies on (every published IPN lists these).
   */
  private signatureHolds(payload: Record<string, unknown>, storePassword: string): boolean {
    const sign = payload.verify_sign;
    const key = payload.verify_key;
    if (typeof sign !== 'string' || typeof key !== 'string' || !/^[a-f0-9]{32}$/i.test(sign))
      return false;
    const names = key.split(',');
    if (names.includes('store_passwd')) return false;
    const relied = ['tran_id', 'amount', 'currency', 'status'];
    if (typeof payload.val_id === 'string' && payload.val_id) relied.push('val_id');
    if (!relied.every((n) => names.includes(n))) return false;
    const fields: Record<string, string> = { store_passwd: md5(storePassword) };
    for (const name of names) {
      if (!name) continue;
      const value = payload[name];
      fields[name] = value === undefined || value === null ? '' : String(value);
    }
    const data = Object.keys(fields)
      .sort()
      .map((k) => `${k}=${fields[k]}`)
      .join('&');
    const expected = Buffer.from(md5(data), 'hex');
    const given = Buffer.from(sign, 'hex');
    return expected.length === given.length && timingSafeEqual(expected, given);
  }
}
