import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  MinLength,
  validateSync,
} from 'class-validator';

const toBool = ({ value }: { value: unknown }) =>
  value === undefined ? undefined : value === 'true' ? true : value === 'false' ? false : value;
const toInt = ({ value }: { value: unknown }) =>
  value === undefined || value === ''
    ? undefined
    : /^-?\d+$/.test(String(value))
      ? Number(value)
      : value;

/**
 * The environment variables of the README's configuration table (plus a few operational
 * knobs). Validated once at start-up; a bad value stops the process with a
 * message naming the variable.
 */
export class EnvSchema {
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT: number = 3000;

  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9.:-]+$/, { message: 'must be an IP address or host name to listen on' })
  HOST: string = '0.0.0.0';

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  METRICS_PORT: number = 9464;

  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9.:-]+$/, { message: 'must be an IP address or host name to listen on' })
  METRICS_HOST: string = '127.0.0.1';

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(2)
  @Max(200)
  DB_POOL_SIZE: number = 10;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(50)
  DB_WORKER_POOL_SIZE: number = 4;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(600_000)
  DB_STATEMENT_TIMEOUT_MS: number = 5000;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(600_000)
  DB_ACQUIRE_TIMEOUT_MS: number = 5000;

  /** How long each start-up step that needs the database (connecting, migrating, the hooks after) keeps trying before start-up exits (0 = one try). */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(600_000)
  DB_CONNECT_RETRY_MS: number = 60_000;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3650)
  EVENT_RETENTION_DAYS: number = 90;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3650)
  EVENT_RETENTION_DAYS_TEST: number = 30;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  LOGIN_FAILURES_PER_EMAIL_ADDRESS: number = 5;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100000)
  LOGIN_FAILURES_PER_EMAIL: number = 50;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100000)
  LOGIN_FAILURES_PER_ADDRESS: number = 20;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1440)
  LOGIN_LOCK_MINUTES: number = 15;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(4)
  @Max(1024)
  LOGIN_HASH_CONCURRENCY?: number;

  /** scrypt's cost parameter N for admin passwords (a power of two); r = 8, p = 1. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @IsIn([16384, 32768, 65536, 131072, 262144, 524288, 1048576], {
    message: 'must be a power of two from 16384 (2^14) to 1048576 (2^20)',
  })
  PASSWORD_SCRYPT_N?: number;

  @IsOptional()
  @IsString()
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// connection string' })
  DATABASE_URL?: string;

  /** A direct (not pooled) connection for what needs a session: LISTEN, the migration lock. Unset: DATABASE_URL. */
  @IsOptional()
  @IsString()
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// connection string' })
  DATABASE_DIRECT_URL?: string;

  /** A streaming read replica for lists, exports and the daily figures (docs/operations.md). Unset: none. */
  @IsOptional()
  @IsString()
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// connection string' })
  DATABASE_READ_URL?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(50)
  DB_READ_POOL_SIZE: number = 10;

  /** How long a replica read waits for the replica to replay the primary's WAL before reading on the primary. */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(10_000)
  DB_READ_MAX_WAIT_MS: number = 200;

  /** Named prepared statements for the hot statements; false for a pooler that cannot keep them (PgBouncer before 1.21). */
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  DB_PREPARED_STATEMENTS: boolean = true;

  @IsOptional()
  @IsString()
  @Matches(/^https?:\/\/[^\s]+$/, { message: 'must be an http(s) URL' })
  PUBLIC_BASE_URL?: string;

  @IsOptional()
  @IsString()
  @Matches(/^[^@\s]+@[^@\s]+$/, { message: 'must be an email address' })
  ADMIN_EMAIL?: string;

  @IsOptional()
  @IsString()
  @MinLength(12, { message: 'must be at least 12 characters' })
  ADMIN_PASSWORD?: string;

  @IsOptional()
  @IsString()
  @MinLength(32)
  JWT_SECRET?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(24 * 60)
  JWT_TTL_MINUTES: number = 60;

  @IsOptional()
  @IsString()
  @Matches(/^[0-9a-fA-F]{64}$/, { message: 'must be 32 bytes as 64 hex characters' })
  ENCRYPTION_KEY?: string;

  @IsOptional()
  @IsString()
  @Matches(/^(https?)(,https?)*$/, { message: 'must be a comma-separated list of http/https' })
  WEBHOOK_TEST_ALLOWED_SCHEMES: string = 'https';

  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  WEBHOOK_ALLOW_PRIVATE_TARGETS: boolean = false;

  @IsOptional()
  @IsString()
  @Matches(/^[0-9a-fA-F.:[\]]+(,[0-9a-fA-F.:[\]]+)*$/, {
    message: 'must be a comma-separated list of DNS server addresses (ip or ip:port)',
  })
  WEBHOOK_DNS_SERVERS?: string;

  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  WORKERS_ENABLED: boolean = true;

  /**
   * Mounts the SSLCommerz and bKash simulators under /simulators/... and
   * points TEST-mode payments at them (decisions section 17). Refused when
   * NODE_ENV=production.
   */
  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  GATEWAY_SIMULATORS: boolean = false;

  @IsOptional()
  @Transform(toBool)
  @IsBoolean()
  RECONCILIATION_NIGHTLY: boolean = true;

  @IsOptional()
  @IsString()
  @Matches(/^https?:\/\/[^\s]+$/, { message: 'must be an http(s) URL' })
  SSLCOMMERZ_SANDBOX_URL: string = 'https://sandbox.sslcommerz.com';

  @IsOptional()
  @IsString()
  @Matches(/^https?:\/\/[^\s]+$/, { message: 'must be an http(s) URL' })
  SSLCOMMERZ_LIVE_URL: string = 'https://securepay.sslcommerz.com';

  @IsOptional()
  @IsString()
  @Matches(/^https?:\/\/[^\s]+$/, { message: 'must be an http(s) URL' })
  BKASH_SANDBOX_URL: string = 'https://tokenized.sandbox.bka.sh/v1.2.0-beta';

  @IsOptional()
  @IsString()
  @Matches(/^https?:\/\/[^\s]+$/, { message: 'must be an http(s) URL' })
  BKASH_LIVE_URL: string = 'https://tokenized.pay.bka.sh/v1.2.0-beta';

  @IsOptional()
  @IsString()
  @Matches(/^https?:\/\/[^\s]+$/, { message: 'must be an http(s) URL' })
  NAGAD_SANDBOX_URL: string = 'http://sandbox.mynagad.com:10080/remote-payment-gateway-1.0/api/dfs';

  @IsOptional()
  @IsString()
  @Matches(/^https?:\/\/[^\s]+$/, { message: 'must be an http(s) URL' })
  NAGAD_LIVE_URL: string = 'https://api.mynagad.com/api/dfs';

  /** The server's public IPv4 address, sent to Nagad as X-KM-IP-V4 (Nagad whitelists it for LIVE). */
  @IsOptional()
  @IsString()
  @Matches(/^(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)$/, {
    message: 'must be an IPv4 address',
  })
  NAGAD_SERVER_IP?: string;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(100)
  @Max(120_000)
  GATEWAY_TIMEOUT_MS: number = 30_000;

  /** Customer email (decisions 16): smtp(s)://[user:pass@]host[:port]; unset = no email channel. */
  @IsOptional()
  @IsString()
  @Matches(/^smtps?:\/\/[^\s]+$/, { message: 'must be an smtp:// or smtps:// URL' })
  SMTP_URL?: string;

  @IsOptional()
  @IsString()
  @Matches(/^(?:[^<>\r\n]*<)?[^\s@<>]+@[^\s@<>]+>?$/, {
    message: 'must be an address, e.g. Joma <billing@example.com>',
  })
  MAIL_FROM: string = 'Joma <no-reply@localhost>';

  /** SSL Wireless SMS API (v3) base; the per-app api_token and sid are set through the admin API. */
  @IsOptional()
  @IsString()
  @Matches(/^https?:\/\/[^\s]+$/, { message: 'must be an http(s) URL' })
  SSLWIRELESS_SMS_URL: string = 'https://smsplus.sslwireless.com';

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  @Max(300_000)
  CALLBACK_DEADLINE_MS: number = 45_000;

  @IsOptional()
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL: string = 'info';

  /** `pretty`: readable lines; `json`: pino's JSON lines; unset: pretty when stdout is a terminal. */
  @IsOptional()
  @IsIn(['json', 'pretty'])
  LOG_FORMAT?: 'json' | 'pretty';

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  RATE_LIMIT_PER_SECOND: number = 100;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  PUBLIC_RATE_LIMIT_PER_SECOND: number = 20;

  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  RATE_LIMIT_REPLICAS: number = 1;

  @IsOptional()
  @IsString()
  @Matches(/^(true|false|\d+|[0-9A-Za-z.:/, ]+)$/, {
    message: 'must be true, false, a hop count, or a comma-separated list of addresses/CIDRs',
  })
  TRUST_PROXY: string = 'loopback';

  @IsOptional()
  @IsIn(['express', 'fastify'])
  HTTP_ADAPTER: 'express' | 'fastify' = 'express';

  /**
   * How long a kept-alive connection may sit idle before the server closes it.
   * Behind a load balancer, set it above the balancer's own idle timeout (60 s
   * on AWS's ALB: 65), or the balancer may send a request on a connection the
   * server is closing and answer its client 502.
   */
  @IsOptional()
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(3600)
  HTTP_KEEP_ALIVE_TIMEOUT_S: number = 5;

  @IsOptional()
  @IsString()
  DATA_DIR: string = '.data';
}

export type Env = EnvSchema;

export class ConfigValidationError extends Error {}

/** Rules that say what kind of value is wanted: when one fails, the range rules are beside the point. */
const KIND_RULES = ['isInt', 'isBoolean'];

/**
 * One message per variable: a value of the wrong kind (`PORT=abc`) gets only
 * that, with the value (numbers and switches are never secrets); otherwise
 * every rule it breaks.
 */
function messageOf(
  name: string,
  constraints: Record<string, string> | undefined,
  value: string | undefined,
): string {
  const kind = KIND_RULES.find((rule) => constraints?.[rule]);
  if (kind && value !== undefined)
    return `${name} must be ${kind === 'isInt' ? 'a whole number' : 'true or false'} (got ${JSON.stringify(value.slice(0, 40))})`;
  return Object.values(constraints ?? {}).join('; ');
}

export function validateEnv(raw: Record<string, string | undefined>): EnvSchema {
  const cleaned: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) if (v !== undefined && v !== '') cleaned[k] = v;
  const env = plainToInstance(EnvSchema, cleaned, { exposeDefaultValues: true });
  const errors = validateSync(env, { skipMissingProperties: false });
  if (errors.length > 0) {
    const lines = errors.map(
      (e) => `  ${e.property}: ${messageOf(e.property, e.constraints, cleaned[e.property])}`,
    );
    throw new ConfigValidationError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return env;
}
