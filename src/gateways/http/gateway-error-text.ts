/**
 * What went wrong at a gateway, for a log line, a payment's `failureReason`
 * and the app's gateway diagnostics: the adapter's error message, which
 * names the gateway's own code and message (`bkash 2001: Invalid App Key`,
 * `nagad 16_0006_083: Duplicate Order ID in same day`,
 * `sslcommerz refused the checkout: Store Credential Error...`) or the HTTP
 * failure (`sslcommerz: /gwprocess/v4/api.php answered HTTP 502`), never a
 * URL's query or any credential (adapters build these messages so).
 */
export function gatewayErrorText(err: unknown): string {
  const text = err instanceof Error ? err.message || err.name : String(err);
  return text.replace(/\s+/g, ' ').trim().slice(0, 300);
}
