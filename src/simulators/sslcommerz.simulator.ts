import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

import { fixture, shaped } from './gateway-shapes';
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

/** What the developer picks on the simulator's checkout page. */
export const SSLCOMMERZ_OUTCOMES = [
  'success',
  'failure',
  'cancel',
  'other_amount',
  'high_risk',
  'ipn_lost',
  'ipn_twice',
] as const;
export type SslcommerzOutcome = (typeof SSLCOMMERZ_OUTCOMES)[number];
/** How the refunds of a payment behave: done at the first query, processing a while, or refused. */
export type SimulatedRefunds = 'instant' | 'slow' | 'refused';

/**
 * A stand-in for SSLCommerz v4 (decisions section 17): the requests the
 * adapter makes, answered in the shapes SSLCommerz publishes
 * (test/fixtures/gateways/sslcommerz, decisions section 19):
 * the session API (form POST, JSON answer with sessionkey and
 * GatewayPageURL), the validation API (GET by val_id), the transaction
 * query (GET by tran_id, one element per attempt), the refund API
 * (`success` = initiated; the merchant's reference as `refe_id`) and refund
 * query (by refund_ref_id), and the IPN it posts (form fields with verify_key /
 * verify_sign). Its hosted page lets the developer pick the outcome
 * (success, failure, cancel, another amount, high risk, a lost or repeated
 * IPN) and how refunds behave. The tests use it as their contract fake,
 * with switches that make it misbehave: hang, answer 500 or garbage, lose a
 * refund's answer.
 */
export interface FakeAttempt {
  valId: string;
  status: 'VALID' | 'FAILED' | 'CANCELLED';
  bankTranId: string;
}

interface FakeSession {
  sessionkey: string;
  tranId: string;
  amount: string;
  currency: string;
  successUrl: string;
  failUrl: string;
  cancelUrl: string;
  ipnUrl: string;
  attempts: FakeAttempt[];
  /** Picked on the page: what the capture is, and how its refunds behave. */
  capturedAmount?: string;
  risk?: '0' | '1';
  refunds?: SimulatedRefunds;
  /** Picked on the page: the first refund's answer never reaches Joma. */
  loseRefundAnswer?: boolean;
}

const md5 = (s: string) => createHash('md5').update(s).digest('hex');

export class SslcommerzSimulator extends SimulatorServer {
  readonly stores = new Map<string, string>();
  readonly sessions = new Map<string, FakeSession>();
  /** By refund_ref_id; `transId` is the merchant's reference (`refe_id`). */
  readonly refunds = new Map<
    string,
    {
      status: string;
      bankTranId: string;
      amount: string;
      transId: string;
      mode: SimulatedRefunds;
      queries: number;
    }
  >();
  /** Every request, for asserting on what was sent. */
  readonly requests: {
    method: string;
    path: string;
    query: URLSearchParams;
    form: URLSearchParams;
  }[] = [];
  /**
   * The host name in the checkout page's URL the customer's browser is sent
   * to. `localhost` puts that page on another site than Joma's 127.0.0.1
   * (sites ignore ports), as the real gateway's page is: its return to Joma
   * is then a cross-site form POST, as in production.
   */
  mode: 'ok' | 'hang' | '500' | 'garbage' = 'ok';
  wrongAmount = false;
  /** Refunds stay `processing` (initiated) while true; the next query after says `refunded`. */
  refundsProcessing = false;
  /** The next refund is made, and its answer never reaches Joma (the connection drops). */
  loseNextRefundAnswer = false;
  /** What the refund query says of a refund once it is no longer processing. */
  refundEnd: 'refunded' | 'cancelled' = 'refunded';
  /**
   * Which published shape each answer takes (test/fixtures/gateways/sslcommerz,
   * decisions section 19): switch one to another variant of the same answer,
   * e.g. `shapes.validation = 'validation.validated'`.
   */
  readonly shapes: Record<'session-init' | 'validation', string> = {
    'session-init': 'session-init.success',
    validation: 'validation.valid',
  };
  /** SSLCommerz's risk verdict on captures (`1`: high risk). */
  riskLevel: '0' | '1' = '0';

  constructor(
    storeId = SSLCOMMERZ_SIMULATOR_STORE.storeId,
    password = SSLCOMMERZ_SIMULATOR_STORE.storePassword,
  ) {
    super('sslcommerz');
    this.stores.set(storeId, password);
  }

  protected override onUnhang(): void {
    this.mode = 'ok';
  }

  sessionOf(tranId: string): FakeSession {
    const s = [...this.sessions.values()].find((x) => x.tranId === tranId);
    if (!s) throw new Error(`no SSLCommerz session for ${tranId}`);
    return s;
  }

  /** The customer completes an attempt on the gateway's page (VALID: paid). */
  attempt(tranId: string, status: FakeAttempt['status'] = 'VALID'): FakeAttempt {
    const s = this.sessionOf(tranId);
    const a: FakeAttempt = {
      valId: `${Date.now()}${randomBytes(4).toString('hex')}`,
      status,
      bankTranId: `BTX${randomBytes(5).toString('hex').toUpperCase()}`,
    };
    s.attempts.push(a);
    return a;
  }

  /** The form fields SSLCommerz posts (IPN and browser), signed with the store password unless `forge`. */
  callbackFields(
    tranId: string,
    a: FakeAttempt,
    opts: { forge?: boolean } = {},
  ): Record<string, string> {
    const s = this.sessionOf(tranId);
    const storeId = [...this.stores.keys()][0];
    // The published IPN of this status (test/fixtures/gateways/sslcommerz/ipn.*), with this attempt's values.
    const published = fixture(
      'sslcommerz',
      a.status === 'VALID' ? 'ipn.valid' : a.status === 'FAILED' ? 'ipn.failed' : 'ipn.cancelled',
    ).request!.form as Record<string, string>;
    const amount =
      s.capturedAmount ?? (this.wrongAmount ? (Number(s.amount) + 1).toFixed(2) : s.amount);
    const risk = s.risk ?? this.riskLevel;
    const shapedFields = shaped(published, {
      tran_id: s.tranId,
      val_id: a.status === 'VALID' ? a.valId : undefined,
      amount,
      store_amount: amount,
      currency_amount: amount,
      card_type: 'VISA-Dutch Bangla',
      card_no: '432149XXXXXX0667',
      card_issuer: 'STANDARD CHARTERED BANK',
      card_brand: 'VISA',
      bank_tran_id: a.bankTranId,
      status: a.status,
      tran_date: '2026-11-25 10:00:00',
      currency: s.currency,
      currency_type: s.currency,
      store_id: storeId,
      risk_level: risk,
      risk_title: risk === '1' ? 'High' : 'Safe',
      verify_sign: undefined,
      verify_key: undefined,
      verify_sign_sha2: undefined,
    }) as Record<string, string>;
    const fields = Object.fromEntries(
      Object.entries(shapedFields).map(([k, v]) => [k, String(v ?? '')]),
    );
    // Signed over the fields the published verify_key lists (those present), as SSLCommerz signs.
    const keys = published.verify_key.split(',').filter((k) => k in fields);
    const signed: Record<string, string> = {
      ...Object.fromEntries(keys.map((k) => [k, fields[k]])),
      store_passwd: md5(this.stores.get(storeId)!),
    };
    const data = Object.keys(signed)
      .sort()
      .map((k) => `${k}=${signed[k]}`)
      .join('&');
    return {
      ...fields,
      verify_key: keys.join(','),
      verify_sign: opts.forge ? md5(`${data}x`) : md5(data),
    };
  }

  /** Posts the IPN of an attempt to the URL the checkout gave; the HTTP status Joma answered. */
  async postIpn(tranId: string, a: FakeAttempt, opts: { forge?: boolean } = {}): Promise<number> {
    const s = this.sessionOf(tranId);
    const res = await fetch(s.ipnUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(this.callbackFields(tranId, a, opts)).toString(),
    });
    await res.text();
    return res.status;
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = this.localUrl(req);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    this.requests.push({
      method: req.method ?? '',
      path: url.pathname,
      query: url.searchParams,
      form,
    });
    if (this.mode === 'hang') await this.held();
    if (this.mode === '500') return this.send(res, 500, 'Internal Server Error', 'text/plain');
    if (this.mode === 'garbage')
      return this.send(res, 200, '<html>Service Unavailable', 'text/html');
    const q = url.searchParams;
    const authed = (p: URLSearchParams) =>
      this.stores.get(p.get('store_id') ?? '') === (p.get('store_passwd') ?? '\u0000');
    switch (url.pathname) {
      case '/gwprocess/v4/api.php': {
        if (!authed(form)) return this.answer(res, 'session-init.failed', {});
        // The simulator's own refusal: the payer goes back, and the IPN goes, only to http(s) (decisions 17).
        const urls = ['success_url', 'fail_url', 'cancel_url', 'ipn_url'];
        const bad = urls.find((k) => form.has(k) && !isWebAddress(form.get(k)));
        if (bad) return this.answer(res, 'session-init.failed', { failedreason: `Invalid ${bad}` });
        const sessionkey = randomBytes(16).toString('hex').toUpperCase();
        this.sessions.set(sessionkey, {
          sessionkey,
          tranId: form.get('tran_id') ?? '',
          amount: form.get('total_amount') ?? '',
          currency: form.get('currency') ?? '',
          successUrl: form.get('success_url') ?? '',
          failUrl: form.get('fail_url') ?? '',
          cancelUrl: form.get('cancel_url') ?? '',
          ipnUrl: form.get('ipn_url') ?? '',
          attempts: [],
        });
        const page = `${pageOrigin(this.baseUrl, this.pageHost)}${this.mountPath}/gwprocess/v4/gw.php?Q=pay&SESSIONKEY=${sessionkey}`;
        // The published answer's shape; its addresses are the simulator's own page (none of the real gateway's).
        return this.answer(res, this.shapes['session-init'], {
          sessionkey,
          GatewayPageURL: page,
          redirectGatewayURL: page,
          directPaymentURLBank: '',
          directPaymentURLCard: '',
          directPaymentURL: '',
          redirectGatewayURLFailed: '',
          storeBanner: '',
          storeLogo: '',
          store_name: 'Simulator store',
          desc: undefined,
        });
      }
      case '/gwprocess/v4/gw.php': {
        // The customer's page: the developer picks what happens (a card would just pay).
        const key = q.get('SESSIONKEY') ?? '';
        const s = this.sessions.get(key);
        if (!s) return this.send(res, 404, 'Unknown session', 'text/plain');
        return sendPage(res, this.checkoutPage(s, url, simulatorLang(url, req)));
      }
      case '/simulator/pay': {
        const s = this.sessions.get(form.get('SESSIONKEY') ?? '');
        if (!s) return this.send(res, 404, 'Unknown session', 'text/plain');
        const outcome = (form.get('outcome') ?? 'success') as SslcommerzOutcome;
        if (!SSLCOMMERZ_OUTCOMES.includes(outcome))
          return this.send(res, 400, 'Unknown outcome', 'text/plain');
        s.loseRefundAnswer = form.get('lose_refund') === '1';
        const lang = form.get('lang') === 'bn' ? 'bn' : 'en';
        return sendPage(res, await this.complete(s, outcome, form.get('refunds'), lang));
      }
      case '/validator/api/validationserverAPI.php': {
        if (!authed(q)) return this.answer(res, 'validation.invalid-transaction', {});
        for (const s of this.sessions.values()) {
          const a = s.attempts.find((x) => x.valId === q.get('val_id'));
          if (a && a.status === 'VALID') {
            // Its status word is the published variant's (VALID, or VALIDATED on a second look).
            const { status: _word, ...values } = this.element(s, a);
            return this.answer(res, this.shapes.validation, values);
          }
        }
        return this.answer(res, 'validation.invalid-transaction', {});
      }
      case '/validator/api/merchantTransIDvalidationAPI.php': {
        if (!authed(q)) return this.answer(res, 'query-by-tran-id.failed-credentials', {});
        if (q.get('bank_tran_id') && q.get('refund_amount')) {
          // Refund request, as sslcommerz-lts sends it (`refe_id` is the
          // merchant's reference): `success` means initiated; done later.
          const refundRef = `RF${randomBytes(6).toString('hex').toUpperCase()}`;
          const session = [...this.sessions.values()].find((x) =>
            x.attempts.some((a) => a.bankTranId === q.get('bank_tran_id')),
          );
          if (!session) return this.answer(res, 'refund-initiate.failed', {});
          this.refunds.set(refundRef, {
            status: 'processing',
            bankTranId: q.get('bank_tran_id')!,
            amount: q.get('refund_amount') ?? '',
            transId: q.get('refe_id') ?? '',
            mode: session.refunds ?? 'instant',
            queries: 0,
          });
          if (this.loseNextRefundAnswer || session.loseRefundAnswer) {
            this.loseNextRefundAnswer = false;
            session.loseRefundAnswer = false;
            res.destroy();
            return;
          }
          return this.answer(res, 'refund-initiate.success', {
            bank_tran_id: q.get('bank_tran_id'),
            trans_id: session.tranId,
            refund_ref_id: refundRef,
          });
        }
        if (q.has('refund_ref_id')) {
          // The refund query takes SSLCommerz's refund_ref_id only (no published query by the merchant's reference).
          const ref = q.get('refund_ref_id') ?? '';
          const r = this.refunds.get(ref);
          if (!r)
            return this.answer(res, 'refund-query.inactive', { APIConnect: 'INVALID_REQUEST' });
          r.queries++;
          if (!this.refundsProcessing && r.status === 'processing') {
            if (r.mode === 'refused') r.status = 'cancelled';
            else if (r.mode === 'instant' || r.queries > 1) r.status = this.refundEnd;
          }
          const tranId = [...this.sessions.values()].find((x) =>
            x.attempts.some((a) => a.bankTranId === r.bankTranId),
          )?.tranId;
          return this.answer(
            res,
            `refund-query.${r.status === 'processing' ? 'processing' : r.status === 'cancelled' ? 'cancelled' : 'refunded'}`,
            {
              bank_tran_id: r.bankTranId,
              tran_id: tranId,
              refund_ref_id: ref,
              status: r.status,
            },
          );
        }
        const s = [...this.sessions.values()].find((x) => x.tranId === q.get('tran_id'));
        const element = s ? s.attempts.map((a) => this.element(s, a)) : [];
        return this.answer(res, 'query-by-tran-id.found', {
          no_of_trans_found: element.length,
          element,
        });
      }
      default:
        return this.send(res, 404, 'Not Found', 'text/plain');
    }
  }

  private element(s: FakeSession, a: FakeAttempt) {
    const amount =
      s.capturedAmount ?? (this.wrongAmount ? (Number(s.amount) + 1).toFixed(2) : s.amount);
    return {
      status: a.status === 'VALID' ? 'VALID' : a.status,
      tran_date: '2026-11-25 10:00:00',
      tran_id: s.tranId,
      val_id: a.status === 'VALID' ? a.valId : undefined,
      error:
        a.status === 'FAILED'
          ? 'Card declined'
          : a.status === 'CANCELLED'
            ? 'Cancelled by User'
            : '',
      amount,
      store_amount: amount,
      currency: s.currency,
      currency_type: s.currency,
      currency_amount: amount,
      validated_on: a.status === 'VALID' ? '2026-11-25 10:00:05' : '',
      bank_tran_id: a.bankTranId,
      card_type: 'VISA-Dutch Bangla',
      card_no: '432149XXXXXX0667',
      card_issuer: 'STANDARD CHARTERED BANK',
      card_brand: 'VISA',
      risk_level: s.risk ?? this.riskLevel,
      risk_title: (s.risk ?? this.riskLevel) === '1' ? 'High' : 'Safe',
    };
  }

  private checkoutPage(s: FakeSession, url: URL, lang: 'en' | 'bn'): string {
    const w = SIMULATOR_WORDS[lang].ssl;
    const radios = SSLCOMMERZ_OUTCOMES.map(
      (value, i) =>
        `<label><input type="radio" name="outcome" value="${value}"${i === 0 ? ' checked' : ''}> ${w.outcomes[value]}</label>`,
    ).join('');
    const modes = refundModeOptions(w.refundModes);
    const page = pageUrl(this.mountPath, url);
    return simulatorPage(
      w.title,
      `<p><span id="ssl-amount">${escapeHtml(s.amount)} ${escapeHtml(s.currency)}</span> · <span id="ssl-reference">${escapeHtml(s.tranId)}</span></p>
<form method="post" action="${this.mountPath}/simulator/pay"><input type="hidden" name="SESSIONKEY" value="${escapeHtml(s.sessionkey)}"><input type="hidden" name="lang" value="${lang}">
<fieldset><legend>${w.happens}</legend>${radios}</fieldset>
<fieldset><legend>${w.refunds}</legend><select name="refunds" aria-label="${w.refunds}">${modes}</select></fieldset>
<fieldset><legend>${w.faults}</legend><label><input type="checkbox" id="ssl-lose-refund" name="lose_refund" value="1"> ${w.loseRefund}</label></fieldset>
<button id="ssl-pay" type="submit">${w.payNow}</button></form>`,
      lang,
      page,
    );
  }

  /**
   * Plays the outcome picked on the page: the attempt SSLCommerz records,
   * its IPN (none, one or two), and the page that sends the browser back to
   * the merchant with the signed fields.
   */
  private async complete(
    s: FakeSession,
    outcome: SslcommerzOutcome,
    refunds: string | null,
    lang: 'en' | 'bn',
  ): Promise<string> {
    s.refunds = refunds === 'slow' || refunds === 'refused' ? refunds : 'instant';
    if (outcome === 'other_amount') s.capturedAmount = (Number(s.amount) + 1).toFixed(2);
    if (outcome === 'high_risk') s.risk = '1';
    const status = outcome === 'failure' ? 'FAILED' : outcome === 'cancel' ? 'CANCELLED' : 'VALID';
    const a = this.attempt(s.tranId, status);
    const ipns =
      outcome === 'ipn_lost' || outcome === 'cancel' ? 0 : outcome === 'ipn_twice' ? 2 : 1;
    for (let i = 0; i < ipns; i++) await this.postIpn(s.tranId, a).catch(() => 0);
    const back = status === 'VALID' ? s.successUrl : status === 'FAILED' ? s.failUrl : s.cancelUrl;
    const inputs = Object.entries(this.callbackFields(s.tranId, a))
      .map(([k, v]) => `<input type="hidden" name="${k}" value="${escapeHtml(v)}">`)
      .join('');
    const w = SIMULATOR_WORDS[lang].ssl;
    return simulatorPage(
      w.title,
      `<p>${w.said[status]}</p><form method="post" action="${escapeHtml(back)}">${inputs}<button id="ssl-return" type="submit">${w.back}</button></form>`,
      lang,
    );
  }
}

/** The store the simulator knows (set them with PATCH /api/v1/admin/apps/{id}/gateways/sslcommerz). */
export const SSLCOMMERZ_SIMULATOR_STORE = { storeId: 'joma_test', storePassword: 'joma_test@ssl' };
