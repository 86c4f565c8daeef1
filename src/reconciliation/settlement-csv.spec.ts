import { parseSettlementCsv } from './settlement-csv';

describe('settlement CSV', () => {
  it('reads good lines and rejects bad ones with their physical line numbers', async () => {
    const csv = [
      'gateway_txn_id,amount_minor,currency,transaction_time,fee_minor,settled_on',
      'T1,150000,BDT,2026-11-24T10:00:00+06:00,3000,2026-11-25',
      'T2,-5,BDT,2026-11-24T10:00:00Z,,',
      '',
      '"T,3",2500,bdt,2026-11-24T11:00:00Z,,',
      'T4,100,USD,2026-11-24T11:00:00Z,,',
      'T5,100,BDT,yesterday,,',
      'T6,100,BDT,2026-11-24T11:00:00Z,101,',
      'T7,100,BDT',
      'T8,"unclosed,BDT,2026-11-24T11:00:00Z,,',
    ].join('\r\n');
    const r = await parseSettlementCsv(csv);
    expect(r.good.map((g) => [g.line, g.gatewayTxnId, g.amountMinor, g.feeMinor])).toEqual([
      [2, 'T1', 150000, 3000],
      [5, 'T,3', 2500, 0],
    ]);
    expect(r.good[0].transactionTime.toISOString()).toBe('2026-11-24T04:00:00.000Z');
    expect(r.good[0].settledOn).toBe('2026-11-25');
    expect(r.rejected.map((x) => x.line)).toEqual([3, 6, 7, 8, 9, 10]);
    expect(r.rejected[0].reason).toContain('amount_minor');
    expect(r.lines).toBe(8);
  });

  it('refuses a header without the required columns as a whole', async () => {
    const r = await parseSettlementCsv('txn,amount\nT1,100\n');
    expect(r.good).toEqual([]);
    expect(r.rejected).toEqual([
      {
        line: 1,
        reason: expect.stringContaining('gateway_txn_id, amount_minor, currency, transaction_time'),
      },
    ]);
  });

  it('names the columns a header row names twice (case and spaces aside), reading no line', async () => {
    const r = await parseSettlementCsv(
      'gateway_txn_id,amount_minor,currency,transaction_time, Amount_Minor\nT1,100,BDT,2026-11-24T10:00:00Z,999\n',
    );
    expect(r.repeatedColumns).toEqual(['amount_minor']);
    expect(r.good).toEqual([]);
    expect(
      (await parseSettlementCsv('gateway_txn_id,amount_minor,currency,transaction_time\n'))
        .repeatedColumns,
    ).toEqual([]);
  });

  it('parses a large file in slices with the event loop turning between them; line numbers hold across slices', async () => {
    const rows = ['gateway_txn_id,amount_minor,currency,transaction_time'];
    for (let i = 0; i < 40_000; i++) rows.push(`"T,${i}",${1000 + i},BDT,2026-11-24T10:00:00Z`);
    rows.push('BAD,-1,BDT,2026-11-24T10:00:00Z');
    let turns = 0;
    let counting = true;
    const count = () => {
      turns++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    const r = await parseSettlementCsv(rows.join('\n'));
    counting = false;
    expect(r.good).toHaveLength(40_000);
    expect(r.good[39_999]).toMatchObject({
      line: 40_001,
      gatewayTxnId: 'T,39999',
      amountMinor: 40_999,
    });
    expect(r.rejected).toEqual([{ line: 40_002, reason: expect.stringContaining('amount_minor') }]);
    expect(turns).toBeGreaterThanOrEqual(5);
  });
});
