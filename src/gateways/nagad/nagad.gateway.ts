import { networkInterfaces } from 'node:os';

import { Injectable, Logger } from '@nestjs/common';

import { Clock } from '../../common/clock/clock';
import { AppConfig } from '../../config/app-config';
import { GatewayAdapter } from '../gateway-adapter.decorator';
import { GatewayHttp } from '../http/gateway-http';
import type {
  CallbackSubject,
  CheckoutCapability,
  CheckoutRef,
  CheckoutRequest,
  CheckoutSession,
  GatewayContext,
  PaymentGateway,
  StatusQueryCapability,
  VerifiedStatus,
} from '../payment-gateway.types';
import {
  minorOfNagadAmount,
  NAGAD_MAX_MINOR,
  nagadAmount,
  nagadChallenge,
  nagadDateTime,
  nagadOrderId,
  nagadOutcome,
  orderIdIsFor,
} from './nagad-answers';
import {
  NagadCryptoError,
  openAnswer,
  privateKeyOf,
  publicKeyOf,
  sealRequest,
} from './nagad-crypto';

interface NagadAnswer {
  /** An error answer: Nagad's code (`16_0006_055`), its message, sometimes the useful devMessage. */
  reason?: unknown;
  message?: unknown;
  devMessage?: unknown;
  sensitiveData?: unknown;
  signature?: unknown;
  callBackUrl?: unknown;
  status?: unknown;
  merchantId?: unknown;
  orderId?: unknown;
  paymentRefId?: unknown;
  amount?: unknown;
  clientMobileNo?: unknown;
  issuerPaymentRefNo?: unknown;
  /** The guide's answer table spells the issuer reference so (its example and captures: issuerPaymentRefNo). */
  issuerPaymentReferenceNo?: unknown;
}

/** A Nagad error answer, or an answer Joma cannot believe, as an exception (never with keys in it). */
export class NagadError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(`nagad ${code}: ${message}`);
  }
}

const text = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

/**
 * Nagad's online payment gateway, check-out API v-0.2.0 (guide v3.3 and
 * Nagad's own PHP sample; test/fixtures/gateways/nagad): initialize
 * (encrypted and signed both ways), complete (gives the payer's page), and
 * verify payment, the only call that settles. Callbacks are hints: whatever
 * they say, verify is asked. Nagad publishes no refund call and no cancel
 * of an unpaid checkout: no refund capability (refunds are manual), no
 * `closeCheckout`, no settlement report.
 */
@Injectable()
@GatewayAdapter()
export class NagadGateway implements PaymentGateway, CheckoutCapability, StatusQueryCapability {
  readonly name = 'nagad';
  readonly modes = ['TEST', 'LIVE'] as const;
  readonly credentialFields = [
    'merchantId',
    'merchantNumber',
    'merchantPrivateKey',
    'nagadPublicKey',
  ] as const;
  /** An RSA private key in PEM runs to about 1,700 characters (2048 bits), 3,300 (4096). */
  readonly credentialMaxLength = 6000;
  /**
   * Nagad publishes no per-transaction minimum or maximum: what its wire
   * format carries, one poisha to its 15-character amount (999999999999.99
   * taka). A merchant's agreement may set lower ones, which Nagad enforces
   * with an error answer (docs/gateways.md, "Set up Nagad").
   */
  readonly limits = { minMinor: 1, maxMinor: NAGAD_MAX_MINOR };
  readonly checkout = this;
  readonly statusQuery = this;
  private readonly logger = new Logger('Nagad');
  private readonly http: GatewayHttp;
  /** X-KM-IP-V4: NAGAD_SERVER_IP, else the host's first non-internal IPv4 address. */
  private readonly serverIp: string;

  constructor(
    private readonly config: AppConfig,
    private readonly clock: Clock,
  ) {
    this.http = new GatewayHttp('nagad', config.gatewayTimeoutMs);
    this.serverIp = config.nagadServerIp ?? hostIpv4();
  }

  credentialProblem(
    c: Readonly<Record<string, string>>,
  ): { field: string; message: string } | null {
    if (!/^[A-Za-z0-9]{1,30}$/.test(c.merchantId ?? ''))
      return { field: 'merchantId', message: "must be Nagad's merchant id (letters and digits)" };
    if (!/^\+?\d{6,15}$/.test(c.merchantNumber ?? ''))
      return { field: 'merchantNumber', message: "must be the merchant's Nagad wallet number" };
    try {
      privateKeyOf(c.merchantPrivateKey ?? '');
    } catch {
      return {
        field: 'merchantPrivateKey',
        message: 'must be an RSA private key: bare base64 PKCS#8 (MIIEv...) or PEM',
      };
    }
    try {
      publicKeyOf(c.nagadPublicKey ?? '');
    } catch {
      return {
        field: 'nagadPublicKey',
        message: "must be Nagad's RSA public key: bare base64 SPKI (MIIBI...) or PEM",
      };
    }
    return null;
  }

  private url(ctx: GatewayContext, path: string): URL {
    const base = ctx.mode === 'LIVE' ? this.config.nagadLiveUrl : this.config.nagadSandboxUrl;
    // The paymentReferenceId goes in the path as Nagad's samples put it (base64, unescaped).
    return new URL(`${base.replace(/\/$/, '')}/${path}`);
  }

  private creds(ctx: GatewayContext) {
    const c = ctx.credentials;
    if (!c?.merchantId || !c.merchantNumber || !c.merchantPrivateKey || !c.nagadPublicKey)
      throw new Error(`nagad: app ${ctx.appId} has no ${ctx.mode} credentials`);
    try {
      return {
        merchantId: c.merchantId,
        merchantNumber: c.merchantNumber,
        merchantKey: privateKeyOf(c.merchantPrivateKey),
        nagadKey: publicKeyOf(c.nagadPublicKey),
      };
    } catch {
      throw new NagadError('keys', `app ${ctx.appId}'s ${ctx.mode} keys do not parse as RSA keys`);
    }
  }

  private headers(): Record<string, string> {
    return {
      'X-KM-Api-Version': 'v-0.2.0',
      'X-KM-IP-V4': this.serverIp,
      'X-KM-Client-Type': 'PC_WEB',
    };
  }

  /**
   * One Nagad call. An error is an answer with `reason` (any HTTP status;
   * Nagad's guide: 4xx client, 5xx server), in Nagad's words: its message,
   * and devMessage where it adds something (issue #14: the useful text).
   */
  private async call(
    ctx: GatewayContext,
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
  ): Promise<NagadAnswer> {
    const answer = await this.http.json<NagadAnswer | null>({
      method,
      url: this.url(ctx, path),
      json: body,
      headers: this.headers(),
      idempotent: method === 'GET',
      signal: ctx.signal,
      errorBodies: true,
    });
    if (!answer || typeof answer !== 'object' || Array.isArray(answer))
      throw new NagadError('?', `${path.split('/')[0]} answered something that is not an object`);
    if (answer.reason !== undefined && answer.reason !== null) {
      const message = text(answer.message) ?? 'error';
      const dev = text(answer.devMessage);
      throw new NagadError(
        String(answer.reason),
        dev && dev !== message ? `${message} (${dev})` : message,
      );
    }
    return answer;
  }

  async createCheckout(req: CheckoutRequest, ctx: GatewayContext): Promise<CheckoutSession> {
    const c = this.creds(ctx);
    const orderId = nagadOrderId(req.reference);
    const dateTime = nagadDateTime(this.clock.now());
    // Nagad's own sample's plaintext, in its member order.
    const initPlain = JSON.stringify({
      merchantId: c.merchantId,
      datetime: dateTime,
      orderId,
      challenge: nagadChallenge(),
    });
    const initialized = await this.call(
      ctx,
      'POST',
      `check-out/initialize/${c.merchantId}/${orderId}`,
      {
        accountNumber: c.merchantNumber,
        dateTime,
        ...sealRequest(initPlain, c.nagadKey, c.merchantKey),
      },
    );
    const opened = this.opened(initialized, c);
    const paymentReferenceId = text(opened.paymentReferenceId);
    // Nagad's challenge, which complete must echo (the guide prints it as `random`).
    const challenge = text(opened.challenge) ?? text(opened.random);
    if (!paymentReferenceId || !challenge)
      throw new NagadError('?', 'an initialize answer without paymentReferenceId and challenge');
    const completePlain = JSON.stringify({
      merchantId: c.merchantId,
      orderId,
      currencyCode: '050',
      amount: nagadAmount(req.amountMinor),
      challenge,
    });
    const completed = await this.call(ctx, 'POST', `check-out/complete/${paymentReferenceId}`, {
      ...sealRequest(completePlain, c.nagadKey, c.merchantKey),
      merchantCallbackURL: req.returnUrl,
      // What Nagad's page shows (guide 5.2.8.2.3: serviceName, at most 25 characters).
      additionalMerchantInfo: { serviceName: req.merchantName.slice(0, 25) },
    });
    const checkoutUrl = text(completed.callBackUrl);
    // The guide's answer has callBackUrl only; captures add status "Success".
    if (
      !checkoutUrl ||
      (completed.status != null && String(completed.status).toLowerCase() !== 'success')
    )
      throw new NagadError(
        '?',
        `a complete answer without the payer's page (status ${String(completed.status ?? 'none')})`,
      );
    return { sessionId: paymentReferenceId, checkoutUrl };
  }

  /** initialize's encrypted answer, believed only when Nagad's signature verifies. */
  private opened(
    answer: NagadAnswer,
    c: ReturnType<NagadGateway['creds']>,
  ): Record<string, unknown> {
    try {
      const plain = openAnswer(answer.sensitiveData, answer.signature, c.merchantKey, c.nagadKey);
      const parsed = JSON.parse(plain.toString('utf8')) as unknown;
      if (!parsed || typeof parsed !== 'object') throw new NagadCryptoError('not an object');
      return parsed as Record<string, unknown>;
    } catch (err) {
      throw new NagadError(
        '?',
        err instanceof NagadCryptoError
          ? `initialize: ${err.message}`
          : 'initialize: an answer whose plaintext is not JSON',
      );
    }
  }

  /** The payer's browser back: `?merchant=&order_id=&payment_ref_id=&status=...` (a hint). */
  subjectOf(payload: Record<string, unknown>): CallbackSubject | null {
    const ref = text(payload.payment_ref_id);
    return ref ? { sessionId: ref } : null;
  }

  /**
   * Whatever the callback's `status` says, Nagad's verify answer decides
   * (decisions 22). Joma found the payment by this paymentRefId, so the
   * answer is checked against it; the orderId cannot be mapped back to the
   * reference here (it is, in `queryStatus`).
   */
  verifyConfirmation(
    payload: Record<string, unknown>,
    ctx: GatewayContext,
  ): Promise<VerifiedStatus | null> {
    const ref = text(payload.payment_ref_id);
    if (!ref) return Promise.resolve(null);
    return this.verify(ref, null, ctx);
  }

  queryStatus(checkout: CheckoutRef, ctx: GatewayContext): Promise<VerifiedStatus | null> {
    return this.verify(checkout.sessionId, checkout.reference, ctx);
  }

  /**
   * `verify/payment/{paymentRefId}` as Nagad states it, decided on `status`
   * alone. Throws (the payment stays as it is and is asked again; a capture
   * is never recorded EXPIRED) on an error answer (16_0006_055 included:
   * Nagad not knowing Joma's own checkout is not "not paid"), a status Joma
   * cannot read, an answer about another payment, or a capture whose
   * amount is garbage.
   */
  private async verify(
    paymentRefId: string,
    reference: string | null,
    ctx: GatewayContext,
  ): Promise<VerifiedStatus> {
    const c = this.creds(ctx);
    const a = await this.call(ctx, 'GET', `verify/payment/${paymentRefId}`);
    const answeredRef = text(a.paymentRefId);
    if (answeredRef && answeredRef !== paymentRefId)
      throw new NagadError('?', `verify answered about another payment reference`);
    const txnId = text(a.issuerPaymentRefNo) ?? text(a.issuerPaymentReferenceNo);
    const outcome = nagadOutcome(a.status, txnId);
    if (!outcome)
      throw new NagadError('?', `verify answered a status Joma cannot read (${String(a.status)})`);
    const amountMinor = minorOfNagadAmount(a.amount);
    if (outcome === 'captured' && amountMinor === null)
      throw new NagadError('?', `verify answered a capture with an amount Joma cannot read`);
    const orderId = text(a.orderId);
    const merchantId = text(a.merchantId);
    let stated = '';
    if (merchantId && merchantId !== c.merchantId) {
      // Not this app's merchant: a difference (decisions 19), never a match.
      stated = `nagad merchant ${merchantId} order ${orderId ?? '?'}`;
      this.logger.error(`verify of ${paymentRefId} names merchant ${merchantId}, not the app's`);
    } else if (orderId && reference !== null) {
      stated = orderIdIsFor(orderId, reference) ? reference : `nagad order ${orderId}`;
    }
    const mobile = text(a.clientMobileNo);
    return {
      sessionId: paymentRefId,
      reference: stated,
      outcome,
      amountMinor,
      currency: 'BDT',
      txnId: outcome === 'captured' ? txnId : null,
      failureReason: outcome === 'failed' ? `nagad (status ${String(a.status)})` : null,
      method:
        outcome === 'captured'
          ? {
              type: 'nagad',
              label: mobile ? `Nagad ${mobile}` : 'Nagad',
              brand: 'Nagad',
              issuer: 'Nagad',
              account: mobile,
            }
          : undefined,
    };
  }
}

/** The host's first non-internal IPv4 address (what Nagad sees when no proxy or NAT rewrites it). */
function hostIpv4(): string {
  for (const list of Object.values(networkInterfaces()))
    for (const nic of list ?? []) if (nic.family === 'IPv4' && !nic.internal) return nic.address;
  return '127.0.0.1';
}
