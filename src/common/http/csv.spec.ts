import { csvField, csvLine, dhakaDateTime, moneyColumns, takaOf, wantsCsv } from './csv';

describe('CSV exports: the pure rules', () => {
  it.each([
    [0, '0.00'],
    [5, '0.05'],
    [50, '0.50'],
    [123450, '1234.50'],
    [100005, '1000.05'],
    [Number.MAX_SAFE_INTEGER, '90071992547409.91'],
    [-250, '-2.50'],
    ['900719925474099199', '9007199254740991.99'],
  ])('takaOf(%s) is %s, in integer arithmetic', (minor, taka) => expect(takaOf(minor)).toBe(taka));

  it('dates and times are Asia/Dhaka local time with +06:00, whole seconds', () => {
    expect(dhakaDateTime(new Date('2025-01-15T18:30:00.999Z'))).toBe('2025-01-16T00:30:00+06:00');
    expect(dhakaDateTime(new Date('2025-03-10T17:59:59.999Z'))).toBe('2025-03-10T23:59:59+06:00');
    expect(dhakaDateTime(new Date('2024-12-31T18:00:00Z'))).toBe('2025-01-01T00:00:00+06:00');
    expect(dhakaDateTime(null)).toBe('');
  });

  it.each([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\rhere', '"cr\rhere"'],
    ['=1+2', "'=1+2"],
    ['+8801711111111', "'+8801711111111"],
    ['-5', "'-5"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tTAB', "'\tTAB"],
    ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
    ['a=b', 'a=b'],
    ['', ''],
  ])('csvField(%j) is %j', (value, field) => expect(csvField(value)).toBe(field));

  it('null and undefined are empty fields; numbers and booleans as written; lines end CRLF', () => {
    expect(csvLine([1, null, undefined, true, 'x,y', 0])).toBe('1,,,true,"x,y",0\r\n');
    expect(csvLine([])).toBe('\r\n');
  });

  it('money columns: taka with two decimals, then minor units', () => {
    const [taka, minor] = moneyColumns<{ m: number }>('amount', (r) => r.m, 'the amount');
    expect([taka.header, minor.header]).toEqual(['amountTaka', 'amountMinor']);
    expect([taka.value({ m: 123450 }), minor.value({ m: 123450 })]).toEqual(['1234.50', 123450]);
  });

  it.each([
    ['text/csv', true],
    ['text/csv; charset=utf-8', true],
    ['TEXT/CSV', true],
    ['application/json;q=0.5, text/csv', true],
    ['text/csv, application/json', true],
    ['text/csv;q=0.5, application/json', false],
    ['text/csv;q=0', false],
    ['application/json', false],
    ['*/*', false],
    ['text/html,application/xhtml+xml,*/*;q=0.8', false],
    [undefined, false],
  ])('Accept: %s asks for CSV: %s', (accept, csv) => expect(wantsCsv(accept)).toBe(csv));
});
