import { resolveTarget } from './target-resolver';

/** Decisions 14 as amended: a guard refusal names the host, never the address it resolved to. */
describe('resolveTarget refusals name the host only', () => {
  const resolveAll = (answers: string[]) => async () =>
    answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

  it('a guard refusal says "resolves to a private address", never which', async () => {
    for (const answers of [
      ['10.0.0.5'],
      ['93.184.216.34', '169.254.169.254'],
      ['::ffff:10.1.2.3'],
    ]) {
      const refusal = resolveTarget('hooks.example.com', {
        allowPrivate: false,
        resolveAll: resolveAll(answers),
      });
      await expect(refusal).rejects.toMatchObject({
        code: 'TARGET_NOT_ALLOWED',
        message: 'hooks.example.com resolves to a private address',
      });
    }
  });
});
