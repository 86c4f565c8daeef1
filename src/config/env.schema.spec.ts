import { AppConfig } from './app-config';
import { ConfigValidationError, validateEnv } from './env.schema';

function errorOf(env: Record<string, string | undefined>): ConfigValidationError {
  try {
    validateEnv(env);
  } catch (err) {
    if (err instanceof ConfigValidationError) return err;
    throw err;
  }
  throw new Error('expected a ConfigValidationError');
}

describe('validateEnv', () => {
  it('applies the documented defaults (README configuration table)', () => {
    const env = validateEnv({});
    expect(env.PORT).toBe(3000);
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.JWT_TTL_MINUTES).toBe(60);
    expect(env.WEBHOOK_TEST_ALLOWED_SCHEMES).toBe('https');
    expect(env.WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(false);
    expect(env.WORKERS_ENABLED).toBe(true);
    expect(env.DATA_DIR).toBe('.data');
    expect(env.HTTP_ADAPTER).toBe('express');
    expect(env.HTTP_KEEP_ALIVE_TIMEOUT_S).toBe(5);
    // bKash advises 30 s per call; a callback as a whole has its own deadline.
    expect(env.GATEWAY_TIMEOUT_MS).toBe(30_000);
    expect(env.CALLBACK_DEADLINE_MS).toBe(45_000);
    expect(env.GATEWAY_SIMULATORS).toBe(false);
  });

  it('refuses GATEWAY_SIMULATORS=true when NODE_ENV=production (the simulators move no money)', () => {
    const env = validateEnv({ GATEWAY_SIMULATORS: 'true' });
    const resolved = {
      databaseUrl: 'postgres://x',
      jwtSecret: 'j',
      encryptionKeyHex: '00'.repeat(32),
    };
    const before = process.env.NODE_ENV;
    try {
      process.env.NODE_ENV = 'production';
      expect(() => AppConfig.fromEnv(env, resolved)).toThrow(/GATEWAY_SIMULATORS=true is refused/);
      process.env.NODE_ENV = 'development';
      const config = AppConfig.fromEnv(env, resolved);
      expect(config.sslcommerzSandboxUrl).toBe('http://localhost:3000/simulators/sslcommerz');
      expect(config.bkashSandboxUrl).toBe('http://localhost:3000/simulators/bkash/v1.2.0-beta');
      expect(config.nagadSandboxUrl).toBe(
        'http://localhost:3000/simulators/nagad/remote-payment-gateway-1.0/api/dfs',
      );
      expect(config.sslcommerzLiveUrl).toBe('https://securepay.sslcommerz.com');
    } finally {
      process.env.NODE_ENV = before;
    }
  });

  it('takes HTTP_KEEP_ALIVE_TIMEOUT_S in whole seconds, from 1 s to an hour', () => {
    expect(validateEnv({ HTTP_KEEP_ALIVE_TIMEOUT_S: '65' }).HTTP_KEEP_ALIVE_TIMEOUT_S).toBe(65);
    for (const bad of ['0', '-1', '3601', '1.5', 'never']) {
      expect(errorOf({ HTTP_KEEP_ALIVE_TIMEOUT_S: bad }).message).toMatch(
        /^\s+HTTP_KEEP_ALIVE_TIMEOUT_S: /m,
      );
    }
  });

  it('takes HTTP_ADAPTER=fastify and refuses any other server', () => {
    expect(validateEnv({ HTTP_ADAPTER: 'fastify' }).HTTP_ADAPTER).toBe('fastify');
    expect(errorOf({ HTTP_ADAPTER: 'koa' }).message).toMatch(/^\s+HTTP_ADAPTER: /m);
  });

  it('takes LOG_FORMAT json or pretty (unset: follow the terminal) and refuses anything else', () => {
    expect(validateEnv({}).LOG_FORMAT).toBeUndefined();
    expect(validateEnv({ LOG_FORMAT: 'pretty' }).LOG_FORMAT).toBe('pretty');
    expect(errorOf({ LOG_FORMAT: 'yes' }).message).toMatch(/^\s+LOG_FORMAT: /m);
  });

  it('parses good values', () => {
    const env = validateEnv({
      PORT: '8080',
      DATABASE_URL: 'postgres://u:p@db:5432/joma',
      ENCRYPTION_KEY: 'ab'.repeat(32),
      WEBHOOK_TEST_ALLOWED_SCHEMES: 'http,https',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WORKERS_ENABLED: 'false',
    });
    expect(env.PORT).toBe(8080);
    expect(env.ENCRYPTION_KEY).toBe('ab'.repeat(32));
    expect(env.WEBHOOK_ALLOW_PRIVATE_TARGETS).toBe(true);
    expect(env.WORKERS_ENABLED).toBe(false);
  });

  it('treats empty strings as unset', () => {
    expect(validateEnv({ PORT: '', DATABASE_URL: '' }).PORT).toBe(3000);
  });

  it.each([['abc'], ['70000'], ['-1'], ['80.5']])(
    'PORT=%s stops start-up with a message naming PORT',
    (port) => {
      const err = errorOf({ PORT: port });
      expect(err.message).toMatch(/^Invalid configuration:/);
      expect(err.message).toMatch(/^\s+PORT: /m);
    },
  );

  it('PORT=abc gets one message, about what kind of value is wanted', () => {
    expect(errorOf({ PORT: 'abc' }).message).toBe(
      'Invalid configuration:\n  PORT: PORT must be a whole number (got "abc")',
    );
    expect(errorOf({ PORT: '70000' }).message).toBe(
      'Invalid configuration:\n  PORT: PORT must not be greater than 65535',
    );
  });

  it.each([['abc'], ['ab'.repeat(31)], ['zz'.repeat(32)], ['ab'.repeat(33)]])(
    'ENCRYPTION_KEY=%s is refused naming ENCRYPTION_KEY',
    (key) => {
      const err = errorOf({ ENCRYPTION_KEY: key });
      expect(err.message).toMatch(/ENCRYPTION_KEY: must be 32 bytes as 64 hex characters/);
      expect(err.message).not.toContain(key);
    },
  );

  it('names every bad variable, and only those', () => {
    const err = errorOf({
      PORT: 'x',
      DATABASE_URL: 'mysql://db',
      WORKERS_ENABLED: 'yes',
      JWT_SECRET: 'short',
      PUBLIC_BASE_URL: 'http://ok.example',
    });
    for (const name of ['PORT', 'DATABASE_URL', 'WORKERS_ENABLED', 'JWT_SECRET'])
      expect(err.message).toMatch(new RegExp(`^\\s+${name}: `, 'm'));
    expect(err.message).not.toMatch(/PUBLIC_BASE_URL/);
  });

  it('refuses a scheme list outside http/https', () => {
    expect(errorOf({ WEBHOOK_TEST_ALLOWED_SCHEMES: 'ftp' }).message).toMatch(
      /WEBHOOK_TEST_ALLOWED_SCHEMES/,
    );
  });
  it('takes a direct URL, a read replica and their settings beside DATABASE_URL, checked like it', () => {
    const env = validateEnv({
      DATABASE_URL: 'postgres://joma:pw@pgbouncer:6432/joma',
      DATABASE_DIRECT_URL: 'postgres://joma:pw@db:5432/joma',
      DATABASE_READ_URL: 'postgresql://joma:pw@replica:5432/joma',
      DB_READ_POOL_SIZE: '6',
      DB_READ_MAX_WAIT_MS: '0',
      DB_PREPARED_STATEMENTS: 'false',
    });
    const resolved = { jwtSecret: 'j', encryptionKeyHex: '00'.repeat(32) };
    const config = AppConfig.fromEnv(env, { ...resolved, databaseUrl: env.DATABASE_URL! });
    expect(config.databaseDirectUrl).toBe('postgres://joma:pw@db:5432/joma');
    expect(config.databaseReadUrl).toBe('postgresql://joma:pw@replica:5432/joma');
    expect([config.dbReadPoolSize, config.dbReadMaxWaitMs, config.dbPreparedStatements]).toEqual([
      6,
      0,
      false,
    ]);
    // Unset: one URL for everything, no replica, named statements.
    const plain = AppConfig.fromEnv(validateEnv({ DATABASE_URL: 'postgres://db/joma' }), {
      ...resolved,
      databaseUrl: 'postgres://db/joma',
    });
    expect([plain.databaseDirectUrl, plain.databaseReadUrl, plain.dbReadPoolSize]).toEqual([
      'postgres://db/joma',
      undefined,
      10,
    ]);
    expect([plain.dbReadMaxWaitMs, plain.dbPreparedStatements]).toEqual([200, true]);
    const err = errorOf({
      DATABASE_DIRECT_URL: 'mysql://db',
      DATABASE_READ_URL: 'replica:5432',
      DB_READ_POOL_SIZE: '0',
      DB_PREPARED_STATEMENTS: 'no',
    });
    for (const name of [
      'DATABASE_DIRECT_URL',
      'DATABASE_READ_URL',
      'DB_READ_POOL_SIZE',
      'DB_PREPARED_STATEMENTS',
    ])
      expect(err.message).toMatch(new RegExp(`^\\s+${name}: `, 'm'));
  });
});
