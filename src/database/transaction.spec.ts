import { isRetryableConflict, retryOnConflict } from './transaction';

const pgError = (code: string) => Object.assign(new Error(code), { code });
const typeormError = (code: string) => Object.assign(new Error(code), { driverError: { code } });

describe('retryOnConflict', () => {
  it('runs a transaction that lost a deadlock or serialization conflict once more', async () => {
    for (const lost of [pgError('40P01'), typeormError('40001')]) {
      let runs = 0;
      const result = await retryOnConflict(async () => {
        if (++runs === 1) throw lost;
        return 'committed';
      });
      expect([result, runs]).toEqual(['committed', 2]);
    }
  });

  it('gives up after the second conflict, and never retries other errors', async () => {
    let runs = 0;
    await expect(
      retryOnConflict(async () => {
        runs++;
        throw pgError('40P01');
      }),
    ).rejects.toMatchObject({ code: '40P01' });
    expect(runs).toBe(2);
    runs = 0;
    await expect(
      retryOnConflict(async () => {
        runs++;
        throw pgError('23505');
      }),
    ).rejects.toMatchObject({ code: '23505' });
    expect(runs).toBe(1);
    expect(isRetryableConflict(pgError('57014'))).toBe(false);
  });
});
