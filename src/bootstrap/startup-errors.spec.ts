import { ConfigValidationError } from '../config/env.schema';
import { EmbeddedPostgresError } from '../database/embedded-postgres-error';
import { describeStartupError } from './startup-errors';

const url = 'postgres://joma:s3cret-pw@db.internal:6543/joma';

describe('describeStartupError', () => {
  it('never prints "undefined" for a rejection without a reason', () => {
    const msg = describeStartupError(undefined);
    expect(msg).not.toContain('undefined');
    expect(msg).toContain('LOG_LEVEL=debug');
  });

  it('passes through messages that already name the fix', () => {
    expect(describeStartupError(new EmbeddedPostgresError('in use: stop it'))).toBe(
      'in use: stop it',
    );
    expect(describeStartupError(new ConfigValidationError('PORT: bad'))).toBe('PORT: bad');
  });

  it('names PORT when the port is taken', () => {
    const err = Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE', port: 3000 });
    expect(describeStartupError(err)).toBe(
      'Port 3000 is already in use (another Joma, or another program): stop it, or set PORT to a free port.',
    );
  });

  it.each([
    [
      'ECONNREFUSED',
      /Cannot reach the database at db\.internal:6543\/joma \(ECONNREFUSED\): check DATABASE_URL/,
    ],
    ['28P01', /refused the user or password in DATABASE_URL/],
    ['3D000', /does not exist \(3D000\): create it/],
  ])('explains database error %s without the password', (code, expected) => {
    const msg = describeStartupError(Object.assign(new Error('x'), { code }), { databaseUrl: url });
    expect(msg).toMatch(expected);
    expect(msg).not.toContain('s3cret-pw');
  });

  it('falls back to the message', () => {
    expect(describeStartupError(new Error('Migration X failed'))).toBe(
      'Start-up failed: Migration X failed',
    );
  });
});
