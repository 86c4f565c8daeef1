import { hkdfSync } from 'node:crypto';
import { availableParallelism } from 'node:os';

import { EnvSchema } from './env.schema';

/**
 * scrypt's N for admin passwords when PASSWORD_SCRYPT_N is unset: OWASP's
 * current guidance, N = 2^17 with r = 8, p = 1 (128 MiB, about 0.5 s a hash).
 */
export const PASSWORD_SCRYPT_N = 131072;

/**
 * Fully resolved configuration: the validated environment plus what start-up
 * decided (the database URL of an embedded server, generated secrets).
 * Injected everywhere as `AppConfig`; nothing else reads `process.env`.
 */
export class AppConfig {
  readonly port: number;
  /** Interface the public listener binds (HOST). */
  readonly host: string;
  /** Port of the separate /metrics listener; 0 = none (the default outside `fromEnv`). */
  readonly metricsPort: number;
  readonly metricsHost: string;
  /** Database guard rails: pool size, statement timeout, pool acquire timeout (503 beyond). */
  readonly dbPoolSize: number;
  /** Connections of the background workers, beside dbPoolSize (0: they share the API's). */
  readonly dbWorkerPoolSize: number;
  /** The HTTP server under Nest (HTTP_ADAPTER): Express (the default) or Fastify. */
  readonly httpAdapter: 'express' | 'fastify';
  /** How long the HTTP server keeps an idle kept-alive connection (HTTP_KEEP_ALIVE_TIMEOUT_S). */
  readonly httpKeepAliveTimeoutMs: number;
  readonly dbStatementTimeoutMs: number;
  readonly dbAcquireTimeoutMs: number;
  /**
   * How long start-up keeps trying a step that needs the database (connecting,
   * migrating, the start-up hooks) while it refuses or drops connections
   * (DB_CONNECT_RETRY_MS); 0 = one try (the default outside `fromEnv`).
   */
  readonly dbConnectRetryMs: number;
  /** Login throttling (failures that lock, per key, within loginLockMinutes) and the hashing cap. */
  readonly loginFailuresPerEmailAddress: number;
  readonly loginFailuresPerEmail: number;
  readonly loginFailuresPerAddress: number;
  readonly loginLockMinutes: number;
  readonly loginHashConcurrency: number;
  /** scrypt's N for admin passwords (OWASP: 2^17); older hashes are upgraded at the next login. */
  readonly passwordScryptN: number;
  /** Days events and webhook deliveries are kept (LIVE, TEST). */
  readonly eventRetentionDays: number;
  readonly eventRetentionDaysTest: number;
  readonly databaseUrl: string;
  /**
   * Where what needs a session of its own connects (LISTEN/NOTIFY listeners,
   * the migrations' advisory lock): DATABASE_DIRECT_URL, else `databaseUrl`.
   */
  readonly databaseDirectUrl: string;
  /** A streaming read replica for lists, exports and the daily figures (DATABASE_READ_URL); undefined: none. */
  readonly databaseReadUrl: string | undefined;
  /** Connections to the read replica (DB_READ_POOL_SIZE). */
  readonly dbReadPoolSize: number;
  /** How long a replica read waits for the replica to catch up before reading on the primary. */
  readonly dbReadMaxWaitMs: number;
  /** The hot statements as named prepared statements (false behind PgBouncer < 1.21). */
  readonly dbPreparedStatements: boolean;
  readonly publicBaseUrl: string;
  readonly adminEmail?: string;
  readonly adminPassword?: string;
  readonly jwtSecret: string;
  readonly jwtTtlMinutes: number;
  /** 32-byte AES-256-GCM key for secrets at rest. */
  readonly encryptionKey: Buffer;
  /** The key list cursors are signed with: HKDF-SHA256 of `encryptionKey` under its own label (every replica derives the same). */
  readonly cursorKey: Buffer;
  readonly webhookTestAllowedSchemes: string[];
  readonly webhookAllowPrivateTargets: boolean;
  /** DNS servers for webhook hosts (ip[:port]); empty = the system's resolvers. */
  readonly webhookDnsServers: string[];
  readonly workersEnabled: boolean;
  /** Reconcile the previous Dhaka day every night (needs workers). */
  readonly reconciliationNightly: boolean;
  /** SSLCommerz hosts: TEST payments go to the sandbox, LIVE to the live one. */
  private readonly sslcommerzSandbox: string;
  readonly sslcommerzLiveUrl: string;
  /** bKash tokenized checkout base URLs (with the API version). */
  private readonly bkashSandbox: string;
  readonly bkashLiveUrl: string;
  /** Nagad's check-out API bases (`…/api/dfs`): TEST payments go to its sandbox, LIVE to its live host. */
  private readonly nagadSandbox: string;
  readonly nagadLiveUrl: string;
  /**
   * The IPv4 address Joma sends Nagad as `X-KM-IP-V4` (NAGAD_SERVER_IP): the
   * server's public address, which Nagad whitelists for LIVE merchants.
   * Undefined: the host's first non-internal IPv4 address.
   */
  readonly nagadServerIp: string | undefined;
  /** The gateway simulators are mounted under /simulators/... and TEST payments go to them. */
  readonly gatewaySimulators: boolean;
  /** Deadline of one gateway HTTP request (bKash advises 30 s). */
  readonly gatewayTimeoutMs: number;
  /** Deadline of handling one gateway callback (return or IPN) as a whole, retries included. */
  readonly callbackDeadlineMs: number;
  /** Webhook request deadline (connect + response); 10 s, shorter in tests. */
  readonly webhookTimeoutMs: number;
  /** Customer email through SMTP (decisions 16); undefined: no email channel. */
  readonly smtpUrl: string | undefined;
  readonly mailFrom: string;
  /** The SMTP client's connection, greeting and socket timeouts: 60 s (decisions 16), shorter in tests. */
  readonly smtpTimeoutMs: number;
  /** SSL Wireless SMS API base (decisions 16). */
  readonly sslwirelessSmsUrl: string;
  /** How often the notification worker looks for messages to send. */
  readonly notificationPollIntervalMs: number;
  /** How often webhook workers poll when no NOTIFY wakes them. */
  readonly webhookPollIntervalMs: number;
  readonly logLevel: string;
  /** `json` or `pretty` log lines; undefined: pretty when stdout is a terminal (LOG_FORMAT). */
  readonly logFormat: 'json' | 'pretty' | undefined;
  /** App calls per second per app and mode, across all replicas (burst 2x); 0 = no limit. */
  readonly rateLimitPerSecond: number;
  /** Public pages and gateway callbacks: requests per second per client address (burst 2x); 0 = no limit. */
  readonly publicRateLimitPerSecond: number;
  /** How many replicas share the limits: each counts in memory and allows its share. */
  readonly rateLimitReplicas: number;
  /** Express `trust proxy`: which proxies' X-Forwarded-For names the client address. */
  readonly trustProxy: boolean | number | string;
  /**
   * An event whose `data` strays from its published schema (events/event-payloads.ts)
   * throws, rolling the change back: everywhere but NODE_ENV=production,
   * where it is logged as an error and recorded all the same.
   */
  readonly strictEventData: boolean;

  constructor(values: {
    port: number;
    host?: string;
    metricsPort?: number;
    metricsHost?: string;
    dbPoolSize?: number;
    dbWorkerPoolSize?: number;
    httpAdapter?: 'express' | 'fastify';
    httpKeepAliveTimeoutMs?: number;
    dbStatementTimeoutMs?: number;
    dbAcquireTimeoutMs?: number;
    dbConnectRetryMs?: number;
    loginFailuresPerEmailAddress?: number;
    loginFailuresPerEmail?: number;
    loginFailuresPerAddress?: number;
    loginLockMinutes?: number;
    loginHashConcurrency?: number;
    passwordScryptN?: number;
    eventRetentionDays?: number;
    eventRetentionDaysTest?: number;
    databaseUrl: string;
    databaseDirectUrl?: string;
    databaseReadUrl?: string;
    dbReadPoolSize?: number;
    dbReadMaxWaitMs?: number;
    dbPreparedStatements?: boolean;
    publicBaseUrl?: string;
    adminEmail?: string;
    adminPassword?: string;
    jwtSecret: string;
    jwtTtlMinutes?: number;
    encryptionKeyHex: string;
    webhookTestAllowedSchemes?: string[];
    webhookAllowPrivateTargets?: boolean;
    webhookDnsServers?: string[];
    workersEnabled?: boolean;
    strictEventData?: boolean;
    reconciliationNightly?: boolean;
    sslcommerzSandboxUrl?: string;
    sslcommerzLiveUrl?: string;
    bkashSandboxUrl?: string;
    bkashLiveUrl?: string;
    nagadSandboxUrl?: string;
    nagadLiveUrl?: string;
    nagadServerIp?: string;
    gatewayTimeoutMs?: number;
    callbackDeadlineMs?: number;
    gatewaySimulators?: boolean;
    webhookTimeoutMs?: number;
    webhookPollIntervalMs?: number;
    smtpUrl?: string;
    mailFrom?: string;
    smtpTimeoutMs?: number;
    sslwirelessSmsUrl?: string;
    notificationPollIntervalMs?: number;
    logLevel?: string;
    logFormat?: 'json' | 'pretty';
    rateLimitPerSecond?: number;
    publicRateLimitPerSecond?: number;
    rateLimitReplicas?: number;
    trustProxy?: boolean | number | string;
  }) {
    this.port = values.port;
    this.host = values.host ?? '0.0.0.0';
    this.metricsPort = values.metricsPort ?? 0;
    this.metricsHost = values.metricsHost ?? '127.0.0.1';
    this.dbPoolSize = values.dbPoolSize ?? 10;
    this.dbWorkerPoolSize = values.dbWorkerPoolSize ?? 4;
    this.httpAdapter = values.httpAdapter ?? 'express';
    this.httpKeepAliveTimeoutMs = values.httpKeepAliveTimeoutMs ?? 5_000;
    this.dbStatementTimeoutMs = values.dbStatementTimeoutMs ?? 5000;
    this.dbAcquireTimeoutMs = values.dbAcquireTimeoutMs ?? 5000;
    this.dbConnectRetryMs = values.dbConnectRetryMs ?? 0;
    this.loginFailuresPerEmailAddress = values.loginFailuresPerEmailAddress ?? 5;
    this.loginFailuresPerEmail = values.loginFailuresPerEmail ?? 50;
    this.loginFailuresPerAddress = values.loginFailuresPerAddress ?? 20;
    this.loginLockMinutes = values.loginLockMinutes ?? 15;
    this.eventRetentionDays = values.eventRetentionDays ?? 90;
    this.eventRetentionDaysTest = values.eventRetentionDaysTest ?? 30;
    this.loginHashConcurrency =
      values.loginHashConcurrency ?? Math.max(4, 2 * availableParallelism());
    this.passwordScryptN = values.passwordScryptN ?? PASSWORD_SCRYPT_N;
    this.databaseUrl = values.databaseUrl;
    this.databaseDirectUrl = values.databaseDirectUrl ?? values.databaseUrl;
    this.databaseReadUrl = values.databaseReadUrl;
    this.dbReadPoolSize = values.dbReadPoolSize ?? 10;
    this.dbReadMaxWaitMs = values.dbReadMaxWaitMs ?? 200;
    this.dbPreparedStatements = values.dbPreparedStatements ?? true;
    this.publicBaseUrl = (values.publicBaseUrl ?? `http://localhost:${values.port}`).replace(
      /\/+$/,
      '',
    );
    this.adminEmail = values.adminEmail;
    this.adminPassword = values.adminPassword;
    this.jwtSecret = values.jwtSecret;
    this.jwtTtlMinutes = values.jwtTtlMinutes ?? 60;
    this.encryptionKey = Buffer.from(values.encryptionKeyHex, 'hex');
    this.cursorKey = Buffer.from(
      hkdfSync('sha256', this.encryptionKey, Buffer.alloc(0), 'joma list cursor v1', 32),
    );
    this.webhookTestAllowedSchemes = values.webhookTestAllowedSchemes ?? ['https'];
    this.webhookAllowPrivateTargets = values.webhookAllowPrivateTargets ?? false;
    this.webhookDnsServers = values.webhookDnsServers ?? [];
    this.workersEnabled = values.workersEnabled ?? true;
    this.strictEventData = values.strictEventData ?? process.env.NODE_ENV !== 'production';
    this.reconciliationNightly = values.reconciliationNightly ?? true;
    this.sslcommerzSandbox = values.sslcommerzSandboxUrl ?? 'https://sandbox.sslcommerz.com';
    this.sslcommerzLiveUrl = values.sslcommerzLiveUrl ?? 'https://securepay.sslcommerz.com';
    this.bkashSandbox = values.bkashSandboxUrl ?? 'https://tokenized.sandbox.bka.sh/v1.2.0-beta';
    this.bkashLiveUrl = values.bkashLiveUrl ?? 'https://tokenized.pay.bka.sh/v1.2.0-beta';
    this.nagadSandbox =
      values.nagadSandboxUrl ??
      'http://sandbox.mynagad.com:10080/remote-payment-gateway-1.0/api/dfs';
    this.nagadLiveUrl = values.nagadLiveUrl ?? 'https://api.mynagad.com/api/dfs';
    this.nagadServerIp = values.nagadServerIp;
    this.gatewaySimulators = values.gatewaySimulators ?? false;
    this.gatewayTimeoutMs = values.gatewayTimeoutMs ?? 30_000;
    this.callbackDeadlineMs = values.callbackDeadlineMs ?? 45_000;
    this.webhookTimeoutMs = values.webhookTimeoutMs ?? 10_000;
    this.webhookPollIntervalMs = values.webhookPollIntervalMs ?? 1_000;
    this.smtpUrl = values.smtpUrl;
    this.mailFrom = values.mailFrom ?? 'Joma <no-reply@localhost>';
    this.smtpTimeoutMs = values.smtpTimeoutMs ?? 60_000;
    this.sslwirelessSmsUrl = (
      values.sslwirelessSmsUrl ?? 'https://smsplus.sslwireless.com'
    ).replace(/\/+$/, '');
    this.notificationPollIntervalMs = values.notificationPollIntervalMs ?? 5_000;
    this.logLevel = values.logLevel ?? 'info';
    this.logFormat = values.logFormat;
    this.rateLimitPerSecond = values.rateLimitPerSecond ?? 100;
    this.publicRateLimitPerSecond = values.publicRateLimitPerSecond ?? 20;
    this.rateLimitReplicas = values.rateLimitReplicas ?? 1;
    this.trustProxy = values.trustProxy ?? 'loopback';
  }

  /** SSLCommerz's host for TEST payments: its sandbox, or the simulator mounted in the service. */
  get sslcommerzSandboxUrl(): string {
    // TEST mode only: LIVE payments always go to the real gateways.
    return this.gatewaySimulators
      ? `${this.publicBaseUrl}${SIMULATOR_MOUNTS.sslcommerz}`
      : this.sslcommerzSandbox;
  }

  /** bKash's base URL for TEST payments: its sandbox, or the simulator mounted in the service. */
  get bkashSandboxUrl(): string {
    return this.gatewaySimulators
      ? `${this.publicBaseUrl}${SIMULATOR_MOUNTS.bkash}/v1.2.0-beta`
      : this.bkashSandbox;
  }

  /** Nagad's API base for TEST payments: its sandbox, or the simulator mounted in the service. */
  get nagadSandboxUrl(): string {
    return this.gatewaySimulators
      ? `${this.publicBaseUrl}${SIMULATOR_MOUNTS.nagad}/remote-payment-gateway-1.0/api/dfs`
      : this.nagadSandbox;
  }

  static fromEnv(
    env: EnvSchema,
    resolved: { databaseUrl: string; jwtSecret: string; encryptionKeyHex: string },
  ): AppConfig {
    return new AppConfig({
      port: env.PORT,
      host: env.HOST,
      metricsPort: env.METRICS_PORT,
      metricsHost: env.METRICS_HOST,
      dbPoolSize: env.DB_POOL_SIZE,
      dbWorkerPoolSize: env.DB_WORKER_POOL_SIZE,
      httpAdapter: env.HTTP_ADAPTER,
      httpKeepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_S * 1000,
      dbStatementTimeoutMs: env.DB_STATEMENT_TIMEOUT_MS,
      dbAcquireTimeoutMs: env.DB_ACQUIRE_TIMEOUT_MS,
      dbConnectRetryMs: env.DB_CONNECT_RETRY_MS,
      loginFailuresPerEmailAddress: env.LOGIN_FAILURES_PER_EMAIL_ADDRESS,
      loginFailuresPerEmail: env.LOGIN_FAILURES_PER_EMAIL,
      loginFailuresPerAddress: env.LOGIN_FAILURES_PER_ADDRESS,
      loginLockMinutes: env.LOGIN_LOCK_MINUTES,
      loginHashConcurrency: env.LOGIN_HASH_CONCURRENCY,
      passwordScryptN: env.PASSWORD_SCRYPT_N,
      eventRetentionDays: env.EVENT_RETENTION_DAYS,
      eventRetentionDaysTest: env.EVENT_RETENTION_DAYS_TEST,
      databaseUrl: resolved.databaseUrl,
      // Only beside a DATABASE_URL of the operator's: the embedded server is one direct server.
      databaseDirectUrl: env.DATABASE_URL ? env.DATABASE_DIRECT_URL : undefined,
      databaseReadUrl: env.DATABASE_URL ? env.DATABASE_READ_URL : undefined,
      dbReadPoolSize: env.DB_READ_POOL_SIZE,
      dbReadMaxWaitMs: env.DB_READ_MAX_WAIT_MS,
      dbPreparedStatements: env.DB_PREPARED_STATEMENTS,
      publicBaseUrl: env.PUBLIC_BASE_URL,
      adminEmail: env.ADMIN_EMAIL,
      adminPassword: env.ADMIN_PASSWORD,
      jwtSecret: resolved.jwtSecret,
      jwtTtlMinutes: env.JWT_TTL_MINUTES,
      encryptionKeyHex: resolved.encryptionKeyHex,
      webhookTestAllowedSchemes: env.WEBHOOK_TEST_ALLOWED_SCHEMES.split(','),
      webhookAllowPrivateTargets: env.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      webhookDnsServers: env.WEBHOOK_DNS_SERVERS ? env.WEBHOOK_DNS_SERVERS.split(',') : [],
      workersEnabled: env.WORKERS_ENABLED,
      reconciliationNightly: env.RECONCILIATION_NIGHTLY,
      sslcommerzSandboxUrl: env.SSLCOMMERZ_SANDBOX_URL,
      sslcommerzLiveUrl: env.SSLCOMMERZ_LIVE_URL,
      bkashSandboxUrl: env.BKASH_SANDBOX_URL,
      bkashLiveUrl: env.BKASH_LIVE_URL,
      nagadSandboxUrl: env.NAGAD_SANDBOX_URL,
      nagadLiveUrl: env.NAGAD_LIVE_URL,
      nagadServerIp: env.NAGAD_SERVER_IP,
      gatewaySimulators: simulatorsAllowed(env.GATEWAY_SIMULATORS),
      gatewayTimeoutMs: env.GATEWAY_TIMEOUT_MS,
      smtpUrl: env.SMTP_URL,
      mailFrom: env.MAIL_FROM,
      sslwirelessSmsUrl: env.SSLWIRELESS_SMS_URL,
      callbackDeadlineMs: env.CALLBACK_DEADLINE_MS,
      logLevel: env.LOG_LEVEL,
      logFormat: env.LOG_FORMAT,
      rateLimitPerSecond: env.RATE_LIMIT_PER_SECOND,
      publicRateLimitPerSecond: env.PUBLIC_RATE_LIMIT_PER_SECOND,
      rateLimitReplicas: env.RATE_LIMIT_REPLICAS,
      trustProxy: parseTrustProxy(env.TRUST_PROXY),
    });
  }
}

/**
 * TRUST_PROXY as Express reads `trust proxy`: `false` (the socket's address),
 * `true` (the left-most X-Forwarded-For entry: only behind a proxy that
 * overwrites it), a hop count, or a comma-separated list of addresses, CIDRs
 * and the names loopback, linklocal, uniquelocal.
 */
export function parseTrustProxy(value: string): boolean | number | string {
  const v = value.trim();
  if (v === 'false' || v === '') return false;
  if (v === 'true') return true;
  if (/^\d+$/.test(v)) return Number(v);
  return v;
}

/** Where the gateway simulators are mounted in the service (GATEWAY_SIMULATORS=true). */
export const SIMULATOR_MOUNTS = {
  sslcommerz: '/simulators/sslcommerz',
  bkash: '/simulators/bkash',
  nagad: '/simulators/nagad',
} as const;

function simulatorsAllowed(on: boolean): boolean {
  if (on && process.env.NODE_ENV === 'production')
    throw new Error(
      'GATEWAY_SIMULATORS=true is refused when NODE_ENV=production: the simulators move no money',
    );
  return on;
}
