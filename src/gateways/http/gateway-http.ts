/**
 * The HTTP client adapters use to talk to gateways: Node's fetch with a
 * deadline per attempt (AbortSignal.timeout), retries only for calls that
 * are safe to repeat (queries), and errors that name what went wrong
 * without echoing credentials (URLs with secrets in their query are never
 * put in an error message).
 */
export class GatewayHttpError extends Error {
  constructor(
    readonly gateway: string,
    readonly kind: 'timeout' | 'network' | 'status' | 'garbage',
    message: string,
    /** The HTTP status, when the gateway answered one that is an error in itself (401, 5xx). */
    readonly httpStatus?: number,
  ) {
    super(`${gateway}: ${message}`);
    this.name = 'GatewayHttpError';
  }
}

export interface GatewayRequest {
  method: 'GET' | 'POST';
  url: URL;
  /** A form body (application/x-www-form-urlencoded). */
  form?: Record<string, string>;
  /** A JSON body. */
  json?: unknown;
  headers?: Record<string, string>;
  /** Safe to send again (a query): retried on timeouts, network errors and 5xx. */
  idempotent: boolean;
  /** The caller's overall deadline (a callback's): no attempt starts or goes on after it. */
  signal?: AbortSignal;
  /**
   * The gateway states its errors in JSON bodies at any HTTP status (Nagad):
   * a 401 or 5xx answer whose body is JSON is returned for the adapter to
   * read (not retried); one that is not JSON is still an HTTP error.
   */
  errorBodies?: boolean;
}

export class GatewayHttp {
  constructor(
    private readonly gateway: string,
    private readonly timeoutMs: number,
    private readonly retries = 2,
  ) {}

  /** The parsed JSON answer (any HTTP status below 500 is returned: gateways report errors in the body). */
  async json<T>(req: GatewayRequest): Promise<T> {
    const attempts = req.idempotent ? 1 + this.retries : 1;
    let last: GatewayHttpError | null = null;
    for (let i = 0; i < attempts; i++) {
      if (req.signal?.aborted) break;
      try {
        return await this.once<T>(req);
      } catch (err) {
        last =
          err instanceof GatewayHttpError
            ? err
            : new GatewayHttpError(this.gateway, 'network', (err as Error).name);
        if (last.kind === 'garbage' || last.httpStatus === 401) break;
      }
    }
    throw (
      last ??
      new GatewayHttpError(
        this.gateway,
        'timeout',
        `${req.url.pathname}: the caller's deadline passed`,
      )
    );
  }

  private async once<T>(req: GatewayRequest): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
    let body: string | undefined;
    if (req.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(req.form).toString();
    } else if (req.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.json);
    }
    let res: Response;
    try {
      res = await fetch(req.url, {
        method: req.method,
        headers,
        body,
        redirect: 'error',
        signal: req.signal
          ? AbortSignal.any([AbortSignal.timeout(this.timeoutMs), req.signal])
          : AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const name = (err as Error).name;
      throw new GatewayHttpError(
        this.gateway,
        name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'network',
        `${req.method} ${req.url.pathname} ${name === 'TimeoutError' ? `timed out after ${this.timeoutMs} ms` : 'failed'}`,
      );
    }
    const text = await res.text();
    if (req.errorBodies && (res.status >= 500 || res.status === 401)) {
      try {
        return JSON.parse(text) as T;
      } catch {
        // Not the gateway's own words: an HTTP error as below.
      }
    }
    if (res.status >= 500 || res.status === 401)
      throw new GatewayHttpError(
        this.gateway,
        'status',
        `${req.url.pathname} answered HTTP ${res.status}`,
        res.status,
      );
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new GatewayHttpError(
        this.gateway,
        'garbage',
        `${req.url.pathname} answered something that is not JSON`,
      );
    }
  }
}
