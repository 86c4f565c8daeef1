import { createHash, randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pageOrigin } from './page-origin';

/**
 * A contract fake of SSLCommerz v4 on 127.0.0.1, answering the requests the
 * adapter makes the way the public docs describe them: the session API
 * (form POST, JSON answer with sessionkey and GatewayPageURL), the
 * validation API (GET by val_id), the transaction query (GET by tran_id,
 * one element per attempt), the refund API and refund query (GET), and the
 * IPN it posts (form fields with verify_key / verify_sign). Switches make it
 * misbehave: hang, answer 500, answer garbage, report a wrong amount,
 * keep refunds processing.
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
}

const md5 = (s: string) => createHash('md5').update(s).digest('hex');

export class SslcommerzFake {
  private server!: Server;
  baseUrl = '';
  readonly stores = new Map<string, string>();
  readonly sessions = new Map<string, FakeSession>();
  /** By refund_ref_id; `transId` is the merchant's refund_trans_id. */
  readonly refunds = new Map<
    string,
    { status: string; bankTranId: string; amount: string; transId: string }
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
  pageHost = '127.0.0.1';
  mode: 'ok' | 'hang' | '500' | 'garbage' = 'ok';
  wrongAmount = false;
  /** Refunds stay `processing` (initiated) while true; the next query after says `refunded`. */
  refundsProcessing = false;
  /** The next refund is made, and its answer never reaches Joma (the connection drops). */
  loseNextRefundAnswer = false;
  /** What the refund query says of a refund once it is no longer processing. */
  refundEnd: 'refunded' | 'cancelled' = 'refunded';
  /** SSLCommerz's risk verdict on captures (`1`: high risk). */
  riskLevel: '0' | '1' = '0';
  private release: (() => void)[] = [];

  constructor(storeId = 'joma_test', password = 'joma_test@ssl') {
    this.stores.set(storeId, password);
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((ok) => this.server.listen(0, '127.0.0.1', ok));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.unhang();
    this.server.closeAllConnections();
    await new Promise<void>((ok) => this.server.close(() => ok()));
  }

  /** Answers the requests held by `hang`, and stops holding new ones. */
  unhang(): void {
    this.mode = 'ok';
    for (const r of this.release.splice(0)) r();
  }

  get waiting(): number {
    return this.release.length;
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
    const fields: Record<string, string> = {
      tran_id: s.tranId,
      val_id: a.status === 'VALID' ? a.valId : '',
      amount: s.amount,
      card_type: 'VISA-Dutch Bangla',
      store_amount: s.amount,
      card_no: '432149XXXXXX0667',
      bank_tran_id: a.bankTranId,
      status: a.status,
      tran_date: '2026-11-25 10:00:00',
      currency: s.currency,
      card_issuer: 'STANDARD CHARTERED BANK',
      card_brand: 'VISA',
      store_id: storeId,
    };
    const keys = Object.keys(fields);
    const signed: Record<string, string> = {
      ...fields,
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

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.baseUrl);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    this.requests.push({
      method: req.method ?? '',
      path: url.pathname,
      query: url.searchParams,
      form,
    });
    if (this.mode === 'hang') await new Promise<void>((ok) => this.release.push(ok));
    if (this.mode === '500') return this.send(res, 500, 'Internal Server Error', 'text/plain');
    if (this.mode === 'garbage')
      return this.send(res, 200, '<html>Service Unavailable', 'text/html');
    const q = url.searchParams;
    const authed = (p: URLSearchParams) =>
      this.stores.get(p.get('store_id') ?? '') === (p.get('store_passwd') ?? '\u0000');
    switch (url.pathname) {
      case '/gwprocess/v4/api.php': {
        if (!authed(form))
          return this.json(res, {
            status: 'FAILED',
            failedreason: 'Store Credential Error Or Store is De-active',
          });
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
        return this.json(res, {
          status: 'SUCCESS',
          failedreason: '',
          sessionkey,
          GatewayPageURL: `${pageOrigin(this.baseUrl, this.pageHost)}/gwprocess/v4/gw.php?Q=pay&SESSIONKEY=${sessionkey}`,
          storeBanner: '',
          storeLogo: '',
        });
      }
      case '/gwprocess/v4/gw.php': {
        // The customer's page: one button pays (as a card would), like the real checkout's last step.
        const key = q.get('SESSIONKEY') ?? '';
        const s = this.sessions.get(key);
        if (!s) return this.send(res, 404, 'Unknown session', 'text/plain');
        return this.send(
          res,
          200,
          `<!doctype html><html><body><h1>SSLCommerz (fake)</h1><p id="ssl-amount">${s.amount} ${s.currency}</p>
<form method="post" action="/fake/pay"><input type="hidden" name="SESSIONKEY" value="${key}"><button id="ssl-pay" type="submit">Pay now</button></form></body></html>`,
          'text/html',
        );
      }
      case '/fake/pay': {
        // Paid: SSLCommerz posts the IPN, then sends the browser back to success_url with the same signed fields.
        const s = this.sessions.get(form.get('SESSIONKEY') ?? '');
        if (!s) return this.send(res, 404, 'Unknown session', 'text/plain');
        const a = this.attempt(s.tranId, 'VALID');
        await this.postIpn(s.tranId, a);
        const inputs = Object.entries(this.callbackFields(s.tranId, a))
          .map(([k, v]) => `<input type="hidden" name="${k}" value="${v}">`)
          .join('');
        return this.send(
          res,
          200,
          `<!doctype html><html><body><p>Payment successful.</p><form method="post" action="${s.successUrl}">${inputs}<button id="ssl-return" type="submit">Return to merchant</button></form></body></html>`,
          'text/html',
        );
      }
      case '/validator/api/validationserverAPI.php': {
        if (!authed(q)) return this.json(res, { status: 'INVALID_TRANSACTION' });
        for (const s of this.sessions.values()) {
          const a = s.attempts.find((x) => x.valId === q.get('val_id'));
          if (a && a.status === 'VALID') return this.json(res, this.element(s, a));
        }
        return this.json(res, { status: 'INVALID_TRANSACTION' });
      }
      case '/validator/api/merchantTransIDvalidationAPI.php': {
        if (!authed(q)) return this.json(res, { APIConnect: 'INVALID_REQUEST' });
        if (q.get('bank_tran_id') && q.get('refund_amount')) {
          // Refund request: `success` means initiated; done later (refund query).
          const transId = q.get('refund_trans_id') ?? '';
          if (transId && [...this.refunds.values()].some((r) => r.transId === transId))
            return this.json(res, {
              APIConnect: 'DONE',
              status: 'failed',
              errorReason: 'Duplicate refund_trans_id',
            });
          const refundRef = `RF${randomBytes(6).toString('hex').toUpperCase()}`;
          this.refunds.set(refundRef, {
            status: 'processing',
            bankTranId: q.get('bank_tran_id')!,
            amount: q.get('refund_amount') ?? '',
            transId,
          });
          if (this.loseNextRefundAnswer) {
            this.loseNextRefundAnswer = false;
            res.destroy();
            return;
          }
          return this.json(res, {
            APIConnect: 'DONE',
            bank_tran_id: q.get('bank_tran_id'),
            trans_id: q.get('refe_id'),
            refund_ref_id: refundRef,
            status: 'success',
            errorReason: '',
          });
        }
        if (q.get('refund_ref_id') || q.get('refund_trans_id')) {
          const byRef = q.get('refund_ref_id');
          const entry = byRef
            ? ([byRef, this.refunds.get(byRef)] as const)
            : [...this.refunds.entries()].find(([, r]) => r.transId === q.get('refund_trans_id'));
          if (!entry || !entry[1])
            return this.json(res, {
              APIConnect: 'DONE',
              status: 'failed',
              errorReason: 'No refund found',
            });
          const [ref, r] = entry;
          if (!this.refundsProcessing && r.status === 'processing') r.status = this.refundEnd;
          return this.json(res, {
            APIConnect: 'DONE',
            bank_tran_id: r.bankTranId,
            tran_id: '',
            refund_ref_id: ref,
            trans_id: r.transId,
            status: r.status,
            errorReason: '',
          });
        }
        const s = [...this.sessions.values()].find((x) => x.tranId === q.get('tran_id'));
        const element = s ? s.attempts.map((a) => this.element(s, a)) : [];
        return this.json(res, { APIConnect: 'DONE', no_of_trans_found: element.length, element });
      }
      default:
        return this.send(res, 404, 'Not Found', 'text/plain');
    }
  }

  private element(s: FakeSession, a: FakeAttempt) {
    const amount = this.wrongAmount ? (Number(s.amount) + 1).toFixed(2) : s.amount;
    return {
      status: a.status === 'VALID' ? 'VALID' : a.status,
      tran_date: '2026-11-25 10:00:00',
      tran_id: s.tranId,
      val_id: a.valId,
      amount,
      store_amount: amount,
      currency: s.currency,
      bank_tran_id: a.bankTranId,
      card_type: 'VISA-Dutch Bangla',
      card_no: '432149XXXXXX0667',
      card_issuer: 'STANDARD CHARTERED BANK',
      card_brand: 'VISA',
      risk_level: this.riskLevel,
      risk_title: this.riskLevel === '1' ? 'High' : 'Safe',
    };
  }

  private json(res: ServerResponse, body: unknown): void {
    this.send(res, 200, JSON.stringify(body), 'application/json');
  }

  private send(res: ServerResponse, status: number, body: string, type: string): void {
    if (res.writableEnded) return;
    res.writeHead(status, { 'content-type': type }).end(body);
  }
}
