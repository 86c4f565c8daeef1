import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

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
import type { SimulatedRefunds } from './sslcommerz.simulator';

/** What the developer picks on the simulator's bKash page. */
export const BKASH_OUTCOMES = ['success', 'failure', 'cancel', 'other_amount'] as const;
export type BkashOutcome = (typeof BKASH_OUTCOMES)[number];

interface FakePayment {
  paymentID: string;
  amount: string;
  currency: string;
  invoice: string;
  callbackURL: string;
  state: 'Initiated' | 'Authorized' | 'Completed' | 'Failed' | 'Cancelled';
  trxID?: string;
  refunded: number;
  chargeMore?: boolean;
  refunds: { refundTrxID: string; amount: string; sku: string; queries: number }[];
  /** Picked on the page: how this payment's refunds behave. */
  refundMode?: SimulatedRefunds;
  payerReference?: string;
  /** Picked on the page: the execute's answer, or the first refund's, never reaches Joma. */
  loseExecuteAnswer?: boolean;
  loseRefundAnswer?: boolean;
}

/** The calls whose answer shape can be switched among the published variants. */
export type BkashCall =
  'grant' | 'refresh' | 'create' | 'execute' | 'query-payment' | 'refund' | 'refund-status';

/** The published shape each answer takes by default (test/fixtures/gateways/bkash). */
export const BKASH_SHAPES: Record<BkashCall, string> = {
  grant: 'grant.success',
  refresh: 'refresh.success',
  create: 'create.success',
  execute: 'execute.completed',
  'query-payment': 'query-payment.completed-merchantInvoice',
  refund: 'refund.success',
  'refund-status': 'refund-status.with-refund',
};

/** bKash's time format in its answers ("2023-01-23T15:53:29:120 GMT+0600"). */
function bkashTime(at = new Date()): string {
  const d = new Date(at.getTime() + 6 * 3_600_000).toISOString();
  return `${d.slice(0, 19)}:${d.slice(20, 23)} GMT+0600`;
}

/**
 * A stand-in for bKash tokenized checkout v1.2.0-beta (decisions sections
 * 17 and 19): JSON bodies, `username` / `password` headers for the token
 * calls, the id_token in `authorization` plus `x-app-key` for the others,
 * every answer in a shape bKash publishes (test/fixtures/gateways/bkash,
 * switchable with `shapes`): the query-payment answer names the invoice
 * `merchantInvoice`, errors come as HTTP 200 with statusCode or errorCode
 * (2056, 2062, 2001, bKash's refund codes), a refund status of a
 * transaction with no refund is 2002, and a refused token is HTTP 401
 * `{"message":"Unauthorized"}`. Its customer page lets the developer pay,
 * pay another amount, fail or cancel, pick how refunds behave and lose
 * answers on purpose. The tests use it as their contract fake, with
 * switches: hang, 500, garbage, lost execute or refund answers, expired
 * tokens, failing token calls.
 */
export class BkashSimulator extends SimulatorServer {
  readonly payments = new Map<string, FakePayment>();
  readonly tokens = new Set<string>();
  grants = 0;
  readonly calls: string[] = [];
  mode: 'ok' | 'hang' | '500' | 'garbage' = 'ok';
  /** The next captures charge 1 BDT more than the checkout asked (and report it). */
  wrongAmount = false;
  /** The next refund is made, and its answer never reaches Joma (the connection drops). */
  loseNextRefundAnswer = false;
  /** The next execute captures, and its answer never reaches Joma (the connection drops). */
  loseNextExecuteAnswer = false;
  /** Token calls answer HTTP 503 (bKash failing), counted in `grants` all the same. */
  tokenCallsFail = false;
  /**
   * Which published shape each answer takes (test/fixtures/gateways/bkash,
   * decisions section 19): switch one to another variant of the same
   * answer, e.g. `shapes['query-payment'] = 'query-payment.completed-both-invoice-fields'`.
   */
  readonly shapes: Record<BkashCall, string> = { ...BKASH_SHAPES };
  /** Refund requests fail with HTTP 500 before bKash makes anything (its status still answers). */
  refundSendsFail = false;
  /** Refunds stay Pending until this is false again (then the status says Completed). */
  refundsProcessing = false;
  /** The next N authorised calls are refused as with an expired token (HTTP 401). */
  expireTokens = 0;
  /** How long a token call takes (ms): concurrent callers overlap. */
  tokenDelayMs = 0;
  /**
   * The host of the customer's checkout page (`bkashURL`). `localhost` puts
   * it on another site than Joma's 127.0.0.1 (sites ignore ports), as
   * bKash's own page is: the way back to Joma is then a cross-site redirect.
   */

  constructor(readonly app = { ...BKASH_SIMULATOR_APP }) {
    super('bkash', '/v1.2.0-beta');
  }

  protected override onUnhang(): void {
    this.mode = 'ok';
  }

  /** The customer enters their wallet number, OTP and PIN on bKash's page. */
  customerPays(paymentID: string): void {
    const p = this.payments.get(paymentID);
    if (!p) throw new Error(`no bKash payment ${paymentID}`);
    p.state = 'Authorized';
  }

  /** The customer closes bKash's page (bKash records the payment Cancelled). */
  customerCancels(paymentID: string): void {
    const p = this.payments.get(paymentID)!;
    if (p.state === 'Initiated') p.state = 'Cancelled';
  }

  /** Where bKash sends the customer's browser back. */
  returnUrl(paymentID: string, status: 'success' | 'failure' | 'cancel'): string {
    const p = this.payments.get(paymentID)!;
    return `${p.callbackURL}?paymentID=${paymentID}&status=${status}&signature=${randomBytes(8).toString('hex')}&apiVersion=1.2.0-beta`;
  }

  /**
   * The customer's page (`bkashURL`): wallet number, OTP and PIN are one
   * step here; the developer picks the outcome (pay, pay another amount,
   * fail, cancel) and how refunds behave, and the browser goes back to the
   * callbackURL with bKash's status, as bKash redirects. Served whatever
   * `mode` the API is in.
   */
  private checkoutPage(url: URL, req: IncomingMessage, res: ServerResponse): boolean {
    const step = /^\/v1\.2\.0-beta\/checkout(\/pay|\/cancel)?$/.exec(url.pathname);
    if (!step) return false;
    const p = this.payments.get(url.searchParams.get('paymentID') ?? '');
    if (!p) {
      this.send(res, 404, 'Unknown payment');
      return true;
    }
    if (step[1] === undefined) {
      sendPage(res, this.page(p, url, simulatorLang(url, req)));
      return true;
    }
    const picked = url.searchParams.get('outcome') ?? (step[1] === '/pay' ? 'success' : 'cancel');
    const outcome = (BKASH_OUTCOMES as readonly string[]).includes(picked)
      ? (picked as BkashOutcome)
      : 'cancel';
    const refunds = url.searchParams.get('refunds');
    p.refundMode = refunds === 'slow' || refunds === 'refused' ? refunds : 'instant';
    p.loseExecuteAnswer = url.searchParams.get('lose_execute') === '1';
    p.loseRefundAnswer = url.searchParams.get('lose_refund') === '1';
    if (outcome === 'success' || outcome === 'other_amount') {
      this.customerPays(p.paymentID);
      if (outcome === 'other_amount') p.chargeMore = true;
    } else if (p.state === 'Initiated') p.state = outcome === 'failure' ? 'Failed' : 'Cancelled';
    const status = outcome === 'other_amount' ? 'success' : outcome;
    res.writeHead(302, { location: this.returnUrl(p.paymentID, status) }).end();
    return true;
  }

  private page(p: FakePayment, url: URL, lang: 'en' | 'bn'): string {
    const w = SIMULATOR_WORDS[lang].bkash;
    const id = escapeHtml(p.paymentID);
    const action = `${this.mountPath}/v1.2.0-beta/checkout/pay`;
    const modes = refundModeOptions(w.refundModes);
    const page = pageUrl(this.mountPath, url);
    return simulatorPage(
      w.title,
      `<p><span id="bkash-amount">${escapeHtml(p.amount)} ${escapeHtml(p.currency)}</span> · <span id="bkash-invoice">${escapeHtml(p.invoice)}</span></p>
<form method="get" action="${action}"><input type="hidden" name="paymentID" value="${id}"><input type="hidden" name="lang" value="${lang}">
<fieldset><legend>${w.refunds}</legend><select name="refunds" aria-label="${w.refunds}">${modes}</select></fieldset>
<fieldset><legend>${w.faults}</legend><label><input type="checkbox" id="bkash-lose-execute" name="lose_execute" value="1"> ${w.loseExecute}</label><label><input type="checkbox" id="bkash-lose-refund" name="lose_refund" value="1"> ${w.loseRefund}</label></fieldset>
<button id="bkash-pay" name="outcome" value="success">${w.pay}</button>
<button id="bkash-other-amount" name="outcome" value="other_amount">${w.otherAmount}</button>
<button id="bkash-fail" name="outcome" value="failure">${w.fail}</button>
<button id="bkash-cancel" name="outcome" value="cancel">${w.cancel}</button>
</form>`,
      lang,
      page,
    );
  }

  /** An error in bKash's tokenized form (HTTP 200, statusCode and statusMessage). */
  private bkashError(res: ServerResponse, code: string, message: string): void {
    this.answer(res, 'execute.error-2056-not-yet-authorised', {
      statusCode: code,
      statusMessage: message,
    });
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = this.localUrl(req);
    if (this.checkoutPage(url, req, res)) return;
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = url.pathname.replace(/^\/v1\.2\.0-beta\/tokenized\/checkout\//, '');
    this.calls.push(path);
    if (this.mode === 'hang') await this.held();
    if (this.mode === '500') return this.send(res, 500, 'Internal Server Error');
    if (this.mode === 'garbage') return this.send(res, 200, '<html>');
    let body: Record<string, string> = {};
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    } catch {
      return this.json(res, { statusCode: '9999', statusMessage: 'System Error' });
    }
    const h = req.headers;
    if (path === 'token/grant' || path === 'token/refresh') {
      if (this.tokenDelayMs) await new Promise((r) => setTimeout(r, this.tokenDelayMs));
      this.grants++;
      if (this.tokenCallsFail) return this.send(res, 503, 'Service Unavailable');
      if (
        h.username !== this.app.username ||
        h.password !== this.app.password ||
        body.app_key !== this.app.appKey ||
        body.app_secret !== this.app.appSecret
      )
        return this.answer(res, 'grant.error-errorCode-2001');
      const idToken = `tok_${randomBytes(12).toString('hex')}`;
      this.tokens.add(idToken);
      return this.answer(res, this.shapes[path === 'token/grant' ? 'grant' : 'refresh'], {
        id_token: idToken,
        expires_in: 3600,
        refresh_token: `ref_${randomBytes(12).toString('hex')}`,
      });
    }
    if (this.expireTokens > 0) {
      this.expireTokens--;
      this.tokens.delete(String(h.authorization));
      return this.answer(res, 'execute.error-401-unauthorized');
    }
    if (!this.tokens.has(String(h.authorization)) || h['x-app-key'] !== this.app.appKey)
      return this.answer(res, 'execute.error-401-unauthorized');
    const p = body.paymentID ? this.payments.get(body.paymentID) : undefined;
    // A payment as bKash states it, in the shape of the call's published answer.
    const view = (call: 'execute' | 'query-payment', x: FakePayment) =>
      this.answer(res, this.shapes[call], {
        paymentID: x.paymentID,
        trxID: x.trxID,
        transactionStatus: x.state === 'Authorized' ? 'Initiated' : x.state,
        amount: x.amount,
        currency: x.currency,
        merchantInvoiceNumber: x.invoice,
        merchantInvoice: x.invoice,
        payerReference: x.payerReference,
        customerMsisdn: x.trxID ? '01770618575' : undefined,
        paymentExecuteTime: x.trxID ? bkashTime() : undefined,
        paymentCreateTime: bkashTime(),
        verificationStatus: x.trxID ? 'Complete' : undefined,
      });
    switch (path) {
      case 'create': {
        // The simulator's own refusal (no published code): only http(s) callbacks (decisions 17).
        if (!isWebAddress(body.callbackURL))
          return this.send(
            res,
            400,
            JSON.stringify({ message: 'Invalid callbackURL' }),
            'application/json',
          );
        const paymentID = `TR0011${randomBytes(8).toString('hex').toUpperCase()}`;
        this.payments.set(paymentID, {
          paymentID,
          amount: body.amount,
          currency: body.currency,
          invoice: body.merchantInvoiceNumber,
          payerReference: body.payerReference,
          callbackURL: body.callbackURL,
          state: 'Initiated',
          refunded: 0,
          refunds: [],
        });
        const callback = body.callbackURL;
        return this.answer(res, this.shapes.create, {
          paymentID,
          bkashURL: `${pageOrigin(this.baseUrl, this.pageHost)}${this.mountPath}/v1.2.0-beta/checkout?paymentID=${paymentID}`,
          callbackURL: callback,
          successCallbackURL: `${callback}?status=success`,
          failureCallbackURL: `${callback}?status=failure`,
          cancelledCallbackURL: `${callback}?status=cancel`,
          amount: body.amount,
          currency: body.currency,
          paymentCreateTime: bkashTime(),
          merchantInvoiceNumber: body.merchantInvoiceNumber,
        });
      }
      case 'execute':
        if (!p) return this.answer(res, 'execute.error-2056-not-yet-authorised');
        if (p.state === 'Completed')
          return this.answer(res, 'execute.error-2062-already-completed');
        if (p.state !== 'Authorized')
          return this.answer(res, 'execute.error-2056-not-yet-authorised');
        p.state = 'Completed';
        // The wallet was charged another amount than the checkout asked (a gateway fault).
        if (this.wrongAmount || p.chargeMore) p.amount = (Number(p.amount) + 1).toFixed(2);
        p.trxID = `BKX${randomBytes(4).toString('hex').toUpperCase()}`;
        if (this.loseNextExecuteAnswer || p.loseExecuteAnswer) {
          this.loseNextExecuteAnswer = false;
          p.loseExecuteAnswer = false;
          res.destroy();
          return;
        }
        return view('execute', p);
      case 'payment/status':
        if (!p) return this.answer(res, 'query-payment.error-2002-invalid-payment-id');
        return view('query-payment', p);
      case 'payment/refund': {
        // Codes and messages from bKash's published error list (test/fixtures/gateways/README.md).
        if (!p) return this.answer(res, 'query-payment.error-2002-invalid-payment-id');
        if (p.state !== 'Completed')
          return this.bkashError(res, '2127', 'Transaction not yet completed');
        if (body.trxID !== p.trxID) return this.bkashError(res, '2077', 'Invalid TrxID');
        const item = (r: FakePayment['refunds'][number]) => ({
          originalTrxID: p.trxID,
          refundTrxID: r.refundTrxID,
          transactionStatus:
            this.refundsProcessing || (p.refundMode === 'slow' && r.queries < 2)
              ? 'Pending'
              : 'Completed',
          amount: r.amount,
          currency: p.currency,
          completedTime: bkashTime(),
        });
        if (body.amount === undefined) {
          // Refund status (v1.2.0-beta): one refund, the latest; a transaction
          // with none is an error, not an empty list (the published shapes).
          const latest = p.refunds[p.refunds.length - 1];
          if (!latest) return this.answer(res, 'refund-status.no-refund');
          for (const r of p.refunds) r.queries++;
          return this.answer(res, this.shapes['refund-status'], item(latest));
        }
        if (p.refundMode === 'refused')
          return this.bkashError(res, '2074', 'The transaction cannot be reversed');
        if (this.refundSendsFail) return this.send(res, 500, 'Internal Server Error');
        const minor = Math.round(Number(body.amount) * 100);
        if (p.refunded + minor > Math.round(Number(p.amount) * 100))
          return this.bkashError(res, '2072', 'Refund amount not valid');
        p.refunded += minor;
        const made = {
          refundTrxID: `RFX${randomBytes(4).toString('hex').toUpperCase()}`,
          amount: body.amount,
          sku: body.sku,
          queries: 0,
        };
        p.refunds.push(made);
        if (this.loseNextRefundAnswer || p.loseRefundAnswer) {
          this.loseNextRefundAnswer = false;
          p.loseRefundAnswer = false;
          res.destroy();
          return;
        }
        return this.answer(res, this.shapes.refund, item(made));
      }
      default:
        return this.send(res, 404, 'Not Found');
    }
  }
}

/** The merchant account the simulator knows (set them with PATCH /api/v1/admin/apps/{id}/gateways/bkash). */
export const BKASH_SIMULATOR_APP = {
  appKey: 'sim-app-key',
  appSecret: 'sim-app-secret',
  username: 'simUser',
  password: 'sim-pass',
};
