/**
 * The port every payment gateway adapter implements (sandbox, SSLCommerz,
 * bKash). Payments talk to gateways only through this. A gateway is a name,
 * the modes it may serve, and capabilities: every adapter opens checkouts
 * and answers status queries; refunds and settlement reports are optional
 * (SSLCommerz and bKash refund but publish no settlement API: their payouts
 * are imported as CSV, docs/gateways.md). Adapters are network clients: nothing here may be
 * called inside a database transaction that holds row locks.
 */
export type GatewayMode = 'TEST' | 'LIVE';

/**
 * Whose money a call is about: the app and mode, and the app's credentials
 * for this gateway in that mode (decrypted; null when the app has set none).
 * Adapters never log or return credentials.
 */
export interface GatewayContext {
  appId: number;
  mode: GatewayMode;
  credentials: Readonly<Record<string, string>> | null;
}

/** Which payment a callback claims to be about, read before anything in it is believed. */
export interface CallbackSubject {
  sessionId?: string;
  reference?: string;
}

/** A checkout as Joma knows it: the gateway's session id and Joma's payment reference. */
export interface CheckoutRef {
  sessionId: string;
  reference: string;
}

export interface CheckoutRequest {
  /** Joma's payment reference, unique, sent to the gateway as its transaction id. */
  reference: string;
  amountMinor: number;
  currency: string;
  description?: string | null;
  merchantName: string;
  customer: {
    reference: string;
    name?: string | null;
    email?: string | null;
    phone?: string | null;
  };
  /** Where the gateway sends the customer's browser back; Joma verifies before believing it. */
  returnUrl: string;
  /** Where the gateway posts its server-to-server notification (IPN). */
  ipnUrl: string;
  expiresAt: Date;
}

export interface CheckoutSession {
  /** The gateway's id for this checkout session. */
  sessionId: string;
  /** Where the customer pays. */
  checkoutUrl: string;
}

export type GatewayOutcome = 'captured' | 'failed' | 'cancelled' | 'open';

/** What the gateway itself says about a session, after verification. */
export interface VerifiedStatus {
  sessionId: string;
  reference: string;
  outcome: GatewayOutcome;
  amountMinor: number;
  currency: string;
  txnId?: string | null;
  method?: {
    type?: string | null;
    label?: string | null;
    brand?: string | null;
    issuer?: string | null;
    /** Masked, never a full card or wallet number. */
    account?: string | null;
  };
}

export interface GatewayRefund {
  refundId: string;
  status: 'succeeded' | 'pending' | 'failed';
}

export interface SettlementLine {
  reference: string;
  txnId: string;
  amountMinor: number;
  settledAt: Date;
}

/** Opening hosted checkouts and believing what comes back from them. */
export interface CheckoutCapability {
  createCheckout(req: CheckoutRequest, ctx: GatewayContext): Promise<CheckoutSession>;
  /** Which payment a callback payload names (unverified: only to find the payment and its app). */
  subjectOf(payload: Record<string, unknown>): CallbackSubject | null;
  /**
   * Turns whatever reached Joma (browser return, IPN) into the gateway's own
   * verified answer, by asking the gateway (validation API) or checking its
   * signature. Never trusts the payload's claims alone. Null: not genuine.
   */
  verifyConfirmation(
    payload: Record<string, unknown>,
    ctx: GatewayContext,
  ): Promise<VerifiedStatus | null>;
  /**
   * Closes an unpaid checkout after the merchant cancelled its payment (or
   * voided its invoice), where the gateway allows it, so the customer can no
   * longer pay there. Optional: without it (or when the customer already
   * paid), a later capture still arrives and counts as excess. Expiry never
   * closes a checkout: a late payment revives the payment.
   */
  closeCheckout?(sessionId: string, ctx: GatewayContext): Promise<void>;
}

/** Asking the gateway what became of a checkout (sweeps, the pay button's refresh). */
export interface StatusQueryCapability {
  queryStatus(checkout: CheckoutRef, ctx: GatewayContext): Promise<VerifiedStatus | null>;
}

export interface RefundCapability {
  /**
   * Asks the gateway to refund part or all of a capture. `reference` is
   * Joma's refund reference: sending the same one again must not refund
   * twice. `pending` (the gateway is processing it) leaves the refund
   * PENDING until `queryRefund` says otherwise.
   */
  refund(
    req: {
      sessionId: string;
      txnId: string;
      amountMinor: number;
      reference: string;
      reason?: string | null;
    },
    ctx: GatewayContext,
  ): Promise<GatewayRefund>;
  /** What became of a refund the gateway answered `pending` to. */
  queryRefund?(gatewayRefundId: string, ctx: GatewayContext): Promise<GatewayRefund>;
}

export interface SettlementCapability {
  settlementLines(day: string): Promise<SettlementLine[]>;
}

export interface PaymentGateway {
  /** The name payments are created with (`gateway` in the API) and callbacks arrive under. */
  readonly name: string;
  /** The modes it may take payments in (a gateway that moves no money serves TEST only). */
  readonly modes: readonly GatewayMode[];
  /** The credential fields an app sets for it (PATCH /admin/apps/{id}/gateways/{name}); none for the sandbox. */
  readonly credentialFields: readonly string[];
  readonly checkout: CheckoutCapability;
  readonly statusQuery: StatusQueryCapability;
  readonly refunds?: RefundCapability;
  readonly settlements?: SettlementCapability;
}
