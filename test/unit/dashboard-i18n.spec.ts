import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { translator } from '../../dashboard/src/i18n';

/** The dashboard in Bangla (decisions section 15): every label it shows has its Bangla. */
describe('dashboard labels in Bangla', () => {
  const src = join(__dirname, '..', '..', 'dashboard', 'src');
  const files = [
    ...readdirSync(src).filter((f) => f.endsWith('.tsx')),
    ...readdirSync(join(src, 'screens')).map((f) => join('screens', f)),
  ];
  /** Every literal label passed to `t('...')` in the dashboard's sources. */
  const labels = [
    ...new Set(
      files.flatMap((f) =>
        [...readFileSync(join(src, f), 'utf8').matchAll(/\bt\(\s*'((?:[^'\\]|\\.)+)'\s*\)/g)].map(
          (m) => m[1].replace(/\\'/g, "'"),
        ),
      ),
    ),
  ];
  const bn = translator('bn');

  it('finds the labels (the scan works)', () => {
    expect(labels.length).toBeGreaterThan(100);
    expect(labels).toContain('Failure reason');
  });

  it('every one has a Bangla translation', () => {
    expect(labels.filter((label) => !/[\u0980-\u09FF]/.test(bn(label)))).toEqual([]);
  });

  it("a reconciliation run's status and failure reason are labelled in both languages", () => {
    expect(translator('en')('Failure reason')).toBe('Failure reason');
    expect(bn('Failure reason')).toBe('ব্যর্থতার কারণ');
    expect(bn('Status')).toBe('অবস্থা');
  });
});
