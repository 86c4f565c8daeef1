import { randomBytes, randomInt } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

import { fixture, shaped } from './gateway-shapes';
import {
  type NagadKeyPair,
  newKeyPair,
  open,
  privateKeyOf,
  publicKeyOf,
  seal,
} from './nagad-crypto';
import {
  amountMinor,
  amountText,
  dhakaCompact,
  dhakaDotted,
  dhakaStamp,
  NAGAD_ERRORS,
  type NagadErrorCode,
  parseDhaka,
} from './nagad-formats';
import {
  isWebAddress,
  pageUrl,
  refundModeOptions,
  sendPage,
  SIMULATOR_WORDS,
  simulatorLang,
  simulatorPage,
} from './simulator-pages';
import { escapeHtml, pageOrigin, SimulatorServer } from './simulator-server';

/** What the developer picks on the simulator's Nagad page. */
export const NAGAD_OUTCOMES = ['success', 'other_amount', 'failure', 'cancel', 'abort'] as const;
export type NagadOutcome = (typeof NAGAD_OUTCOMES)[number];

/** Where the sandbox serves the API under its host; the adapter's base URL ends with it. */
export const NAGAD_API_PREFIX = '/remote-payment-gateway-1.0/api/dfs';

/** A purchase as Nagad keeps it (statuses: guide v3.3 5.2.7). */
interface NagadPurchase {
  paymentReferenceId: string;
  merchantId: string;
  orderId: string;
  /** Nagad's challenge (20 hex characters), which complete must echo. */
  challenge: string;
  orderedAt: Date;
  status: string;
  /** As complete sent it, and as Nagad charged it (another on the "other amount" outcome). */
  amount?: string;
  chargedAmount?: string;
  merchantCallbackURL?: string;
  additionalMerchantInfo?: unknown;
  paidAt?: Date;
  issuerPaymentRefNo?: string;
  clientMobileNo?: string;
  /** Picked on the page (or set by a test): faults of this purchase. */
  loseVerify: number;
  slowVerifyMs: number;
  loseCallback: boolean;
}

/** A request the simulator received (API calls only), with its decrypted plaintext once opened. */
export interface NagadRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
  plaintext?: Record<string, unknown>;
}

/** The answers whose shape can be switched among the published variants. */
export type NagadCall =
  'initialize' | 'initialize-sensitive-data' | 'complete' | 'verify' | 'callback';

/** The published shape each answer takes by default (test/fixtures/gateways/nagad). */
export const NAGAD_SHAPES: Record<NagadCall, string> = {
  initialize: 'initialize.success-sandbox-2024',
  'initialize-sensitive-data': 'initialize-sensitive-data.response-sandbox-2024',
  complete: 'complete.success-sandbox-2024',
  verify: 'verify-payment.success-sandbox-2021',
  callback: 'callback.success-sandbox-2020',
};

/** What a developer sets in Joma for the simulator (PATCH /api/v1/admin/apps/{id}/gateways/nagad?mode=TEST). */
export interface NagadCredentials {
  merchantId: string;
  merchantNumber: string;
  /** Bare base64 PKCS#8 DER. */
  merchantPrivateKey: string;
  /** Bare base64 SPKI DER. */
  nagadPublicKey: string;
}

export interface NagadSimulatorOptions {
  merchantId?: string;
  merchantNumber?: string;
  /** Key pairs to use instead of fresh ones (tests that keep keys across simulators). */
  merchantKeys?: NagadKeyPair;
  nagadKeys?: NagadKeyPair;
  /** How far a request's dateTime may be from now (16_0006_076); Nagad publishes no window. */
  dateTimeWindowMs?: number;
}

/** The merchant account the simulator knows (its keys are made per simulator). */
export const NAGAD_SIMULATOR_MERCHANT = {
  merchantId: '689000000000001',
  merchantNumber: '01900000001',
};

const HEADERS = ['x-km-api-version', 'x-km-ip-v4', 'x-km-client-type'] as const;
const ORDER_ID = /^[A-Za-z0-9]{5,20}$/;
const OPEN = new Set(['Ready', 'InProgress']);
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

const pause = (ms: number) => new Promise<void>((ok) => setTimeout(ok, ms));

/**
 * A stand-in for Nagad's online payment gateway (decisions sections 17, 19
 * and 22): check-out initialize, check-out complete and verify payment under
 * `…/remote-payment-gateway-1.0/api/dfs/` (also `…/api/dfs/`), with Nagad's
 * crypto (RSA PKCS#1 v1.5 `sensitiveData` for the recipient, SHA256withRSA
 * `signature` by the sender; nagad-crypto.ts), its X-KM-* headers, its
 * checks and error codes (`{reason, message}`, HTTP 400), every answer in a
 * published shape (test/fixtures/gateways/nagad, switchable with `shapes`).
 * Its payment page (complete's `callBackUrl`) lets the developer pay, pay
 * another amount, fail, cancel or leave, lose the callback, lose or slow
 * Joma's next verify; the browser then goes to the merchantCallbackURL with
 * the callback's query string. The tests use it as their contract fake.
 */
export class NagadSimulator extends SimulatorServer {
  readonly merchantId: string;
  readonly merchantNumber: string;
  /** The two key pairs: Nagad's (it decrypts requests and signs answers) and the merchant's. */
  readonly keys: { nagad: NagadKeyPair; merchant: NagadKeyPair };
  readonly purchases = new Map<string, NagadPurchase>();
  /** Every API request, for asserting on what was sent. */
  readonly requests: NagadRequest[] = [];
  mode: 'ok' | 'hang' | '500' | 'garbage' = 'ok';
  /**
   * Which published shape each answer takes (test/fixtures/gateways/nagad,
   * decisions section 19), e.g. `shapes.verify = 'verify-payment.success-guide-v3.3'`.
   */
  readonly shapes: Record<NagadCall, string> = { ...NAGAD_SHAPES };
  readonly dateTimeWindowMs: number;
  private readonly ordersOfDay = new Set<string>();
  private lostVerifies = 0;
  private readonly slowCalls: number[] = [];
  private readonly nagadPrivate;
  private readonly merchantPublic;

  constructor(options: NagadSimulatorOptions = {}) {
    super('nagad', NAGAD_API_PREFIX);
    this.merchantId = options.merchantId ?? NAGAD_SIMULATOR_MERCHANT.merchantId;
    this.merchantNumber = options.merchantNumber ?? NAGAD_SIMULATOR_MERCHANT.merchantNumber;
    this.keys = {
      nagad: options.nagadKeys ?? newKeyPair(),
      merchant: options.merchantKeys ?? newKeyPair(),
    };
    this.nagadPrivate = privateKeyOf(this.keys.nagad.privateKey);
    this.merchantPublic = publicKeyOf(this.keys.merchant.publicKey);
    this.dateTimeWindowMs = options.dateTimeWindowMs ?? 10 * 60_000;
  }

  /** What to set in Joma (printed by `npm run simulators`, served at `<mount>/simulator/credentials`). */
  get credentials(): NagadCredentials {
    return {
      merchantId: this.merchantId,
      merchantNumber: this.merchantNumber,
      merchantPrivateKey: this.keys.merchant.privateKey,
      nagadPublicKey: this.keys.nagad.publicKey,
    };
  }

  protected override onUnhang(): void {
    this.mode = 'ok';
  }

  purchase(paymentRefId: string): NagadPurchase {
    const p = this.purchases.get(paymentRefId);
    if (!p) throw new Error(`no Nagad purchase ${paymentRefId}`);
    return p;
  }

  /** The payer pays on Nagad's page (`amountMinor`: Nagad charges another amount). */
  payerPays(paymentRefId: string, opts: { amountMinor?: number } = {}): void {
    const p = this.payable(paymentRefId);
    p.status = 'Success';
    p.chargedAmount = opts.amountMinor === undefined ? p.amount : amountText(opts.amountMinor);
    p.paidAt = new Date();
    p.issuerPaymentRefNo = Array.from({ length: 8 }, () => ALNUM[randomInt(ALNUM.length)]).join('');
    p.clientMobileNo = maskedWallet();
  }

  /** The payer cancels on Nagad's page (Cancelled). */
  payerCancels(paymentRefId: string): void {
    const p = this.payable(paymentRefId);
    p.status = 'Cancelled';
    p.clientMobileNo = maskedWallet();
  }

  /** The payer leaves Nagad's page (Aborted). */
  payerAborts(paymentRefId: string): void {
    this.payable(paymentRefId).status = 'Aborted';
  }

  /** The payment fails on Nagad's page (Failed). */
  payerFails(paymentRefId: string): void {
    const p = this.payable(paymentRefId);
    p.status = 'Failed';
    p.clientMobileNo = maskedWallet();
  }

  /** The next `n` verify answers (of `paymentRefId`, else of any purchase) are lost: the connection drops. */
  loseNextVerify(n = 1, paymentRefId?: string): void {
    if (paymentRefId) this.purchase(paymentRefId).loseVerify = n;
    else this.lostVerifies = n;
  }

  /** The next `calls` API calls answer after `ms`. */
  slowNext(ms: number, calls = 1): void {
    for (let i = 0; i < calls; i++) this.slowCalls.push(ms);
  }

  /**
   * Where Nagad sends the payer's browser once the purchase is decided: the
   * merchantCallbackURL with the query string of the published callbacks
   * (callback.success-sandbox-2020; callback.aborted for the other statuses).
   */
  callbackUrl(paymentRefId: string): string {
    const p = this.purchase(paymentRefId);
    const query =
      p.status === 'Success'
        ? shaped(fixture('nagad', this.shapes.callback).request!.query, {
            merchant: p.merchantId,
            order_id: p.orderId,
            payment_ref_id: p.paymentReferenceId,
            status: 'Success',
            payment_dt: dhakaCompact(p.paidAt!),
            // As the sandbox captures show: a base64 copy of payment_ref_id, not verify's trx id.
            issuer_payment_ref: p.paymentReferenceId,
          })
        : shaped(fixture('nagad', 'callback.aborted').request!.query, {
            merchant: p.merchantId,
            order_id: p.orderId,
            payment_ref_id: p.paymentReferenceId,
            status: p.status,
          });
    const pairs = Object.entries(query)
      .map(([k, v]) => `${k}=${encodeURIComponent(String(v))}`)
      .join('&');
    const back = p.merchantCallbackURL ?? '';
    return `${back}${back.includes('?') ? '&' : '?'}${pairs}`;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = this.localUrl(req);
    if (this.page(url, req, res)) return;
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const api = /^(?:\/remote-payment-gateway-1\.0)?\/api\/dfs(\/.*)$/.exec(url.pathname);
    if (!api) return this.send(res, 404, 'Not Found');
    const path = api[1];
    const text = Buffer.concat(chunks).toString('utf8');
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // kept as text: answered below as an invalid request
    }
    const seen: NagadRequest = { method: req.method ?? '', path, headers: req.headers, body };
    this.requests.push(seen);
    const slow = this.slowCalls.shift();
    if (slow) await pause(slow);
    if (this.mode === 'hang') await this.held();
    if (this.mode === '500') return this.send(res, 500, 'Internal Server Error');
    if (this.mode === 'garbage') return this.send(res, 200, '<html>', 'text/html');
    if (HEADERS.some((h) => !String(req.headers[h] ?? '').trim()))
      return this.error(res, '16_0006_064');
    const segments = path.split('/').slice(1).map(decodeSegment);
    const outer = (typeof body === 'object' && body !== null ? body : {}) as Record<
      string,
      unknown
    >;
    const checkOut = segments[0] === 'check-out';
    if (req.method === 'POST' && checkOut && segments.length === 4 && segments[1] === 'initialize')
      return this.initialize(res, segments[2], segments[3], outer, seen);
    if (req.method === 'POST' && checkOut && segments.length === 3 && segments[1] === 'complete')
      return this.complete(res, segments[2], outer, seen);
    if (req.method === 'GET' && segments.length === 3 && path.startsWith('/verify/payment/'))
      return this.verify(res, segments[2]);
    return this.send(res, 404, 'Not Found');
  }

  /** POST check-out/initialize/{merchantId}/{orderId}: Nagad's paymentReferenceId and challenge, sealed. */
  private initialize(
    res: ServerResponse,
    merchantId: string,
    orderId: string,
    outer: Record<string, unknown>,
    seen: NagadRequest,
  ): void {
    if (merchantId !== this.merchantId) return this.error(res, '16_0006_004');
    // The outer body says dateTime (guide, samples) or datetime (2024 capture): both taken.
    const outerTime = parseDhaka(outer.dateTime ?? outer.datetime);
    if (outerTime === undefined) return this.error(res, '16_0006_081');
    if (!ORDER_ID.test(orderId)) return this.error(res, '16_0006_068');
    const plain = this.openRequest(res, outer, seen);
    if (!plain) return;
    if (plain.merchantId !== merchantId) return this.error(res, '16_0006_004');
    if (plain.orderId !== orderId) return this.error(res, '16_0006_068');
    const plainTime = parseDhaka(plain.datetime ?? plain.dateTime);
    if (plainTime === undefined) return this.error(res, '16_0006_081');
    const now = Date.now();
    if ([outerTime, plainTime].some((t) => Math.abs(now - t) > this.dateTimeWindowMs))
      return this.error(res, '16_0006_076');
    const challenge = plain.challenge;
    if (!(typeof challenge === 'string' && challenge) && typeof challenge !== 'number')
      return this.error(res, '16_0006_059');
    const day = `${merchantId}.${orderId}.${dhakaCompact(new Date(now)).slice(0, 8)}`;
    if (this.ordersOfDay.has(day)) return this.error(res, '16_0006_083');
    this.ordersOfDay.add(day);
    const at = new Date(now);
    const nagadChallenge = randomBytes(10).toString('hex');
    const paymentReferenceId = Buffer.from(
      `${dhakaStamp(at)}.${merchantId}.${orderId}.${nagadChallenge}`,
    ).toString('base64');
    this.purchases.set(paymentReferenceId, {
      paymentReferenceId,
      merchantId,
      orderId,
      challenge: nagadChallenge,
      orderedAt: at,
      status: 'OrderInitiated',
      loseVerify: 0,
      slowVerifyMs: 0,
      loseCallback: false,
    });
    const plaintext = JSON.stringify(
      shaped(fixture('nagad', this.shapes['initialize-sensitive-data']).response!.body, {
        paymentReferenceId,
        challenge: nagadChallenge,
        random: nagadChallenge,
        acceptDateTime: dhakaCompact(at),
      }),
    );
    this.answer(
      res,
      this.shapes.initialize,
      seal(plaintext, this.merchantPublic, this.nagadPrivate),
    );
  }

  /** POST check-out/complete/{paymentReferenceId}: the payment page's address. */
  private complete(
    res: ServerResponse,
    paymentReferenceId: string,
    outer: Record<string, unknown>,
    seen: NagadRequest,
  ): void {
    const p = this.purchases.get(paymentReferenceId);
    if (!p) return this.error(res, '16_0006_055');
    const plain = this.openRequest(res, outer, seen);
    if (!plain) return;
    if (plain.merchantId !== p.merchantId) return this.error(res, '16_0006_004');
    if (plain.orderId !== p.orderId) return this.error(res, '16_0006_068');
    if (p.status !== 'OrderInitiated') return this.error(res, '16_0006_017');
    if (plain.currencyCode !== '050') return this.error(res, '16_0006_080');
    if (amountMinor(plain.amount) === undefined || plain.challenge !== p.challenge)
      return this.error(res, '16_0006_059');
    // The simulator's own refusal (decisions 17): the payer goes back only to http(s).
    if (!isWebAddress(outer.merchantCallbackURL as string | undefined))
      return this.answer(res, 'initialize.error-devMessage-live-2022', {
        reason: '16_0006_999',
        message: NAGAD_ERRORS['16_0006_999'],
        devMessage: 'merchantCallbackURL must be an http(s) address',
      });
    p.amount = plain.amount as string;
    p.merchantCallbackURL = outer.merchantCallbackURL as string;
    p.additionalMerchantInfo = outer.additionalMerchantInfo ?? null;
    p.status = 'Ready';
    this.answer(res, this.shapes.complete, {
      callBackUrl: `${pageOrigin(this.baseUrl, this.pageHost)}${this.mountPath}/check-out/${p.paymentReferenceId}`,
      status: 'Success',
    });
  }

  /** GET verify/payment/{paymentRefId}: the purchase as Nagad states it. */
  private async verify(res: ServerResponse, paymentRefId: string): Promise<void> {
    const p = this.purchases.get(paymentRefId);
    if (!p) return this.answer(res, 'verify-payment.error-16_0006_055-invalid-payment-reference');
    if (p.loseVerify > 0 || this.lostVerifies > 0) {
      if (p.loseVerify > 0) p.loseVerify--;
      else this.lostVerifies--;
      res.destroy();
      return;
    }
    if (p.slowVerifyMs) {
      const ms = p.slowVerifyMs;
      p.slowVerifyMs = 0;
      await pause(ms);
    }
    const template = fixture('nagad', this.shapes.verify).response!.body as Record<string, unknown>;
    // Dates as the chosen variant writes them: yyyyMMddHHmmss (guide) or yyyy-MM-dd HH:mm:ss.S (2021 capture).
    const compact = /^\d{14}$/.test(String(template.issuerPaymentDateTime ?? ''));
    const date = (d: Date | undefined) => (d ? (compact ? dhakaCompact(d) : dhakaDotted(d)) : null);
    const paid = p.status === 'Success';
    this.answer(res, this.shapes.verify, {
      merchantId: p.merchantId,
      orderId: p.orderId,
      paymentRefId: p.paymentReferenceId,
      amount: p.chargedAmount ?? p.amount ?? null,
      clientMobileNo: p.clientMobileNo ?? null,
      merchantMobileNo: this.merchantNumber,
      orderDateTime: date(p.orderedAt),
      issuerPaymentDateTime: paid ? date(p.paidAt) : null,
      issuerPaymentRefNo: paid ? p.issuerPaymentRefNo : null,
      issuerPaymentReferenceNo: paid ? p.issuerPaymentRefNo : null,
      additionalMerchantInfo: p.additionalMerchantInfo ?? null,
      status: p.status,
      // A Success keeps the variant's own code ('000' captured, '00_000_00' in the guide).
      ...(paid ? {} : { statusCode: null }),
      cancelIssuerDateTime: null,
      cancelIssuerRefNo: null,
    });
  }

  /**
   * The payer's side, served whatever `mode` the API is in: the payment page
   * (`/check-out/{paymentReferenceId}`), the choice made on it
   * (`/check-out/pay?paymentRefId=&outcome=&lose_callback=1&lose_verify=1&slow=ms`),
   * and the credentials to set in Joma (`/simulator/credentials`).
   */
  private page(url: URL, req: IncomingMessage, res: ServerResponse): boolean {
    if (req.method !== 'GET') return false;
    if (url.pathname === '/simulator/credentials') {
      this.json(res, this.credentials);
      return true;
    }
    if (url.pathname === '/check-out/pay') {
      this.pay(url, req, res);
      return true;
    }
    const shown = /^\/check-out\/([^/]+)$/.exec(url.pathname);
    if (!shown) return false;
    const p = this.purchases.get(decodeSegment(shown[1]));
    if (!p || p.status === 'OrderInitiated') {
      this.send(res, 404, 'Unknown payment');
      return true;
    }
    if (p.status === 'Ready') p.status = 'InProgress';
    sendPage(res, this.checkoutPage(p, url, simulatorLang(url, req)));
    return true;
  }

  private pay(url: URL, req: IncomingMessage, res: ServerResponse): void {
    const q = url.searchParams;
    const p = this.purchases.get(q.get('paymentRefId') ?? '');
    if (!p || p.status === 'OrderInitiated') return this.send(res, 404, 'Unknown payment');
    const picked = q.get('outcome') ?? 'success';
    if (!(NAGAD_OUTCOMES as readonly string[]).includes(picked))
      return this.send(res, 400, 'Unknown outcome');
    // A purchase already decided keeps its outcome: the browser is sent back with it again.
    if (OPEN.has(p.status)) {
      p.loseCallback = q.get('lose_callback') === '1';
      if (q.get('lose_verify') === '1') p.loseVerify = 1;
      p.slowVerifyMs = Math.max(0, Math.min(Number(q.get('slow')) || 0, 120_000));
      const outcome = picked as NagadOutcome;
      if (outcome === 'success') this.payerPays(p.paymentReferenceId);
      else if (outcome === 'other_amount')
        this.payerPays(p.paymentReferenceId, { amountMinor: amountMinor(p.amount)! + 100 });
      else if (outcome === 'failure') this.payerFails(p.paymentReferenceId);
      else if (outcome === 'cancel') this.payerCancels(p.paymentReferenceId);
      else this.payerAborts(p.paymentReferenceId);
    }
    if (p.loseCallback) {
      const lang = simulatorLang(url, req);
      const w = SIMULATOR_WORDS[lang].nagad;
      return sendPage(res, simulatorPage(w.title, `<p id="nagad-stayed">${w.stayed}</p>`, lang));
    }
    res.writeHead(302, { location: this.callbackUrl(p.paymentReferenceId) }).end();
  }

  private checkoutPage(p: NagadPurchase, url: URL, lang: 'en' | 'bn'): string {
    const w = SIMULATOR_WORDS[lang].nagad;
    const radios = NAGAD_OUTCOMES.map(
      (value, i) =>
        `<label><input type="radio" name="outcome" value="${value}"${i === 0 ? ' checked' : ''}> ${w.outcomes[value]}</label>`,
    ).join('');
    const info = p.additionalMerchantInfo as { serviceName?: unknown } | null;
    const service =
      typeof info?.serviceName === 'string' ? ` · ${escapeHtml(info.serviceName)}` : '';
    return simulatorPage(
      w.title,
      `<p><span id="nagad-amount">${escapeHtml(p.amount ?? '')} BDT</span> · <span id="nagad-order">${escapeHtml(p.orderId)}</span>${service}</p>
<form method="get" action="${this.mountPath}/check-out/pay"><input type="hidden" name="paymentRefId" value="${escapeHtml(p.paymentReferenceId)}"><input type="hidden" name="lang" value="${lang}">
<fieldset><legend>${w.happens}</legend>${radios}</fieldset>
<fieldset><legend>${w.faults}</legend><label><input type="checkbox" id="nagad-lose-callback" name="lose_callback" value="1"> ${w.loseCallback}</label><label><input type="checkbox" id="nagad-lose-verify" name="lose_verify" value="1"> ${w.loseVerify}</label>
<label>${w.slow} <select id="nagad-slow" name="slow">${refundModeOptions(w.slowModes)}</select></label></fieldset>
<button id="nagad-pay" type="submit">${w.payNow}</button></form>`,
      lang,
      pageUrl(this.mountPath, url),
    );
  }

  private payable(paymentRefId: string): NagadPurchase {
    const p = this.purchase(paymentRefId);
    if (!OPEN.has(p.status))
      throw new Error(`Nagad purchase ${paymentRefId} is ${p.status}, not open for the payer`);
    return p;
  }

  /**
   * A request's sensitiveData decrypted with Nagad's key and its signature
   * checked with the merchant's (kept on `seen`); null once the 057 or 058
   * error has been answered.
   */
  private openRequest(
    res: ServerResponse,
    outer: { sensitiveData?: unknown; signature?: unknown },
    seen: NagadRequest,
  ): NagadRequest['plaintext'] | null {
    const opened = open(
      outer.sensitiveData,
      outer.signature,
      this.nagadPrivate,
      this.merchantPublic,
    );
    if (!opened.ok) {
      this.error(res, opened.failed === 'decryption' ? '16_0006_057' : '16_0006_058');
      return null;
    }
    return (seen.plaintext = opened.plaintext);
  }

  /** An error answer in the guide's envelope `{reason, message}` (HTTP 400, as the fixtures). */
  private error(res: ServerResponse, code: NagadErrorCode): void {
    this.answer(res, 'initialize.error-16_0006_004-guide', {
      reason: code,
      message: NAGAD_ERRORS[code],
    });
  }
}

/** A payer's wallet number as Nagad masks it ('016****5428'). */
function maskedWallet(): string {
  return `01${randomInt(3, 10)}****${String(randomInt(10_000)).padStart(4, '0')}`;
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
