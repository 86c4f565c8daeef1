/**
 * The port every payment gateway adapter implements (sandbox, SSLCommerz,
 * bKash). Payments talk to gateways only through this.
 */
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
  expiresAt: Date;
}

export interface CheckoutSession {
  /** The gateway's id for this checkout session. */
  sessionId: string;
  /** Where the customer pays. */
  checkoutUrl: string;
}

/** What a customer chooses on the sandbox checkout. */
export type SandboxChoice = 'pay' | 'fail' | 'cancel';

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

export interface PaymentGateway {
  readonly name: string;
  createCheckout(req: CheckoutRequest): Promise<CheckoutSession>;
  /**
   * Turns whatever reached Joma (browser return, IPN) into the gateway's own
   * verified answer, by asking the gateway (validation API) or checking its
   * signature. Never trusts the payload's claims alone. Null: not genuine.
   */
  verifyConfirmation(payload: Record<string, unknown>): Promise<VerifiedStatus | null>;
  queryStatus(sessionId: string): Promise<VerifiedStatus | null>;
  /**
   * Closes an unpaid checkout after the merchant cancelled its payment (or
   * voided its invoice), where the gateway allows it, so the customer can no
   * longer pay there. Optional: without it (or when the customer already
   * paid), a later capture still arrives and counts as excess. Expiry never
   * closes a checkout: a late payment revives the payment.
   */
  closeCheckout?(sessionId: string): Promise<void>;
  refund(
    sessionId: string,
    txnId: string,
    amountMinor: number,
    reason?: string,
  ): Promise<GatewayRefund>;
  settlementLines(day: string): Promise<SettlementLine[]>;
}
