import { ManualClock } from '../common/clock/clock';
import { sha256Hex } from '../common/crypto/crypto';
import { ChangeFeed } from '../database/change-feed';
import { AppCredentialsService, UNKNOWN_KEY_CACHE_MS } from './app-credentials.service';

const SECRET = 'sk_test_secret';
const row = (appStatus: string) => ({
  appId: 7,
  mode: 'TEST',
  secretHash: sha256Hex(SECRET),
  appName: 'Shop',
  appStatus,
});

/** The service over a fake database whose answers the test releases one by one. */
function setup() {
  const answers: ((row: unknown) => void)[] = [];
  const query = jest.fn(
    () => new Promise<unknown>((resolve) => answers.push(resolve as (row: unknown) => void)),
  );
  const clock = new ManualClock();
  clock.freeze();
  const service = new AppCredentialsService(
    { byApiKey: query } as never,
    clock,
    new ChangeFeed({} as never, {} as never),
  );
  const answer = async (row: unknown) => {
    for (let i = 0; answers.length === 0 && i < 100; i++) await new Promise((r) => setImmediate(r));
    // No read to answer: the call was served from the cache.
    answers.shift()?.(row);
  };
  return { service, query, answer, clock };
}

describe('AppCredentialsService key cache', () => {
  it('serves a repeated key from the cache', async () => {
    const { service, query, answer } = setup();
    const first = service.authenticate('pk_test_k', SECRET);
    await answer(row('ACTIVE'));
    await first;
    await service.authenticate('pk_test_k', SECRET);
    expect(query).toHaveBeenCalledTimes(1);
  });

  it('does not cache a row read before an invalidation that arrived while the read was in flight', async () => {
    const { service, query, answer } = setup();
    // The read starts, then the suspension commits and its notification arrives.
    const inFlight = service.authenticate('pk_test_k', SECRET);
    service.invalidateApp(7);
    await answer(row('ACTIVE'));
    await inFlight;
    // The next call must read again (and see the suspension), not trust the stale row for 10 s.
    const next = service.authenticate('pk_test_k', SECRET);
    await answer(row('SUSPENDED'));
    await expect(next).rejects.toMatchObject({ code: 'APP_SUSPENDED' });
    expect(query).toHaveBeenCalledTimes(2);
  });

  it('remembers an unknown key for a few seconds: a flood of made-up keys reads the database once', async () => {
    const { service, query, answer, clock } = setup();
    const first = service.authenticate('pk_test_made_up', SECRET);
    await answer(null);
    await expect(first).rejects.toMatchObject({ code: 'INVALID_CREDENTIALS' });
    for (let i = 0; i < 20; i++)
      await expect(service.authenticate('pk_test_made_up', SECRET)).rejects.toMatchObject({
        code: 'INVALID_CREDENTIALS',
      });
    expect(query).toHaveBeenCalledTimes(1);
    clock.advance(UNKNOWN_KEY_CACHE_MS + 1);
    const later = service.authenticate('pk_test_made_up', SECRET);
    await answer(null);
    await expect(later).rejects.toMatchObject({ code: 'INVALID_CREDENTIALS' });
    expect(query).toHaveBeenCalledTimes(2);
  });
});
