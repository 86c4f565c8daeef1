import { randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pageOrigin } from './page-origin';

interface FakePayment {
  paymentID: string;
  amount: string;
  currency: string;
  invoice: string;
  callbackURL: string;
  state: 'Initiated' | 'Authorized' | 'Completed' | 'Failed' | 'Cancelled';
  trxID?: string;
  refunded: number;
  refunds: { refundTrxID: string; amount: string; sku: string; state: 'Completed' | 'Pending' }[];
}

/**
 * A contract fake of bKash tokenized checkout v1.2.0-beta on 127.0.0.1: JSON
 * bodies, `username` / `password` headers for the token calls, the id_token
 * in `authorization` plus `x-app-key` for the others, and errors as HTTP 200
 * with a statusCode (2056 invalid payment state, 2062 already completed,
 * 2001 invalid app key, 9999 system error). Switches: hang, 500, garbage,
 * wrong amount.
 */
export class BkashFake {
  private server!: Server;
  baseUrl = '';
  readonly payments = new Map<string, FakePayment>();
  readonly tokens = new Set<string>();
  grants = 0;
  readonly calls: string[] = [];
  mode: 'ok' | 'hang' | '500' | 'garbage' = 'ok';
  /** The next captures charge 1 BDT more than the checkout asked (and report it). */
  wrongAmount = false;
  /** The next refund is made, and its answer never reaches Joma (the connection drops). */
  loseNextRefundAnswer = false;
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
  pageHost = '127.0.0.1';
  private release: (() => void)[] = [];

  constructor(
    readonly app = {
      appKey: 'fake-app-key',
      appSecret: 'fake-app-secret',
      username: 'sandboxUser',
      password: 'sandbox-pass',
    },
  ) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((ok) => this.server.listen(0, '127.0.0.1', ok));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1.2.0-beta`;
    return this;
  }

  async stop(): Promise<void> {
    this.unhang();
    this.server.closeAllConnections();
    await new Promise<void>((ok) => this.server.close(() => ok()));
  }

  unhang(): void {
    this.mode = 'ok';
    for (const r of this.release.splice(0)) r();
  }

  get waiting(): number {
    return this.release.length;
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
   * button here; Pay authorizes and sends the browser back with
   * status=success, Cancel with status=cancel, as bKash redirects to the
   * callbackURL. Served whatever `mode` the API is in.
   */
  private checkoutPage(url: URL, res: ServerResponse): boolean {
    const step = /^\/v1\.2\.0-beta\/checkout(\/pay|\/cancel)?$/.exec(url.pathname);
    if (!step) return false;
    const p = this.payments.get(url.searchParams.get('paymentID') ?? '');
    if (!p) {
      this.send(res, 404, 'Unknown payment');
      return true;
    }
    const id = encodeURIComponent(p.paymentID);
    if (step[1] === undefined) {
      this.send(
        res,
        200,
        `<!doctype html><html><body><h1>bKash (fake)</h1><p id="bkash-amount">${p.amount} ${p.currency}</p>
<a id="bkash-pay" href="/v1.2.0-beta/checkout/pay?paymentID=${id}">Confirm</a> <a id="bkash-cancel" href="/v1.2.0-beta/checkout/cancel?paymentID=${id}">Close</a></body></html>`,
        'text/html',
      );
      return true;
    }
    if (step[1] === '/pay') this.customerPays(p.paymentID);
    else if (p.state === 'Initiated') p.state = 'Cancelled';
    res
      .writeHead(302, {
        location: this.returnUrl(p.paymentID, step[1] === '/pay' ? 'success' : 'cancel'),
      })
      .end();
    return true;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (this.checkoutPage(url, res)) return;
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = url.pathname.replace(/^\/v1\.2\.0-beta\/tokenized\/checkout\//, '');
    this.calls.push(path);
    if (this.mode === 'hang') await new Promise<void>((ok) => this.release.push(ok));
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
      if (
        h.username !== this.app.username ||
        h.password !== this.app.password ||
        body.app_key !== this.app.appKey ||
        body.app_secret !== this.app.appSecret
      )
        return this.json(res, { statusCode: '2001', statusMessage: 'Invalid App Key' });
      this.grants++;
      const idToken = `tok_${randomBytes(12).toString('hex')}`;
      this.tokens.add(idToken);
      return this.json(res, {
        statusCode: '0000',
        statusMessage: 'Successful',
        id_token: idToken,
        token_type: 'Bearer',
        expires_in: 3600,
        refresh_token: `ref_${randomBytes(12).toString('hex')}`,
      });
    }
    if (this.expireTokens > 0) {
      this.expireTokens--;
      this.tokens.delete(String(h.authorization));
      return this.send(
        res,
        401,
        JSON.stringify({ message: 'The incoming token has expired' }),
        'application/json',
      );
    }
    if (!this.tokens.has(String(h.authorization)) || h['x-app-key'] !== this.app.appKey)
      return this.json(res, { statusCode: '2079', statusMessage: 'Invalid Token' });
    const p = body.paymentID ? this.payments.get(body.paymentID) : undefined;
    const view = (x: FakePayment) => ({
      statusCode: '0000',
      statusMessage: 'Successful',
      paymentID: x.paymentID,
      trxID: x.trxID,
      transactionStatus: x.state === 'Authorized' ? 'Initiated' : x.state,
      amount: x.amount,
      currency: x.currency,
      intent: 'sale',
      merchantInvoiceNumber: x.invoice,
      customerMsisdn: '01770618575',
    });
    switch (path) {
      case 'create': {
        const paymentID = `TR0011${randomBytes(8).toString('hex').toUpperCase()}`;
        this.payments.set(paymentID, {
          paymentID,
          amount: body.amount,
          currency: body.currency,
          invoice: body.merchantInvoiceNumber,
          callbackURL: body.callbackURL,
          state: 'Initiated',
          refunded: 0,
          refunds: [],
        });
        return this.json(res, {
          statusCode: '0000',
          statusMessage: 'Successful',
          paymentID,
          bkashURL: `${pageOrigin(this.baseUrl, this.pageHost)}/v1.2.0-beta/checkout?paymentID=${paymentID}`,
          callbackURL: body.callbackURL,
          amount: body.amount,
          intent: 'sale',
          currency: body.currency,
          transactionStatus: 'Initiated',
          merchantInvoiceNumber: body.merchantInvoiceNumber,
        });
      }
      case 'execute':
        if (!p)
          return this.json(res, { statusCode: '2056', statusMessage: 'Invalid Payment State' });
        if (p.state === 'Completed')
          return this.json(res, {
            statusCode: '2062',
            statusMessage: 'The payment has already been completed',
          });
        if (p.state !== 'Authorized')
          return this.json(res, { statusCode: '2056', statusMessage: 'Invalid Payment State' });
        p.state = 'Completed';
        // The wallet was charged another amount than the checkout asked (a gateway fault).
        if (this.wrongAmount) p.amount = (Number(p.amount) + 1).toFixed(2);
        p.trxID = `BKX${randomBytes(4).toString('hex').toUpperCase()}`;
        return this.json(res, view(p));
      case 'payment/status':
        if (!p)
          return this.json(res, { statusCode: '2056', statusMessage: 'Invalid Payment State' });
        return this.json(res, view(p));
      case 'payment/refund': {
        if (!p || p.state !== 'Completed' || body.trxID !== p.trxID)
          return this.json(res, { statusCode: '2071', statusMessage: 'Invalid refund request' });
        const item = (r: FakePayment['refunds'][number]) => ({
          refundTrxID: r.refundTrxID,
          transactionStatus: this.refundsProcessing ? 'Pending' : 'Completed',
          amount: r.amount,
          sku: r.sku,
          currency: p.currency,
          charge: '0.00',
        });
        if (body.amount === undefined)
          // Refund status: the transaction's refunds.
          return this.json(res, {
            statusCode: '0000',
            statusMessage: 'Successful',
            originalTrxID: p.trxID,
            refundTransactions: p.refunds.map(item),
          });
        const minor = Math.round(Number(body.amount) * 100);
        if (p.refunded + minor > Math.round(Number(p.amount) * 100))
          return this.json(res, { statusCode: '2073', statusMessage: 'Refund amount exceeds' });
        p.refunded += minor;
        const made = {
          refundTrxID: `RFX${randomBytes(4).toString('hex').toUpperCase()}`,
          amount: body.amount,
          sku: body.sku,
          state: 'Completed' as const,
        };
        p.refunds.push(made);
        if (this.loseNextRefundAnswer) {
          this.loseNextRefundAnswer = false;
          res.destroy();
          return;
        }
        return this.json(res, {
          statusCode: '0000',
          statusMessage: 'Successful',
          originalTrxID: p.trxID,
          ...item(made),
        });
      }
      default:
        return this.send(res, 404, 'Not Found');
    }
  }

  private json(res: ServerResponse, body: unknown): void {
    this.send(res, 200, JSON.stringify(body), 'application/json');
  }

  private send(res: ServerResponse, status: number, body: string, type = 'text/plain'): void {
    if (res.writableEnded) return;
    res.writeHead(status, { 'content-type': type }).end(body);
  }
}
