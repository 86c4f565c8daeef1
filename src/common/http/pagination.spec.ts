import { MAX_PAGE, MAX_PAGE_SIZE, paginationMeta } from './pagination';

describe('paginationMeta', () => {
  it.each([
    [0, 20, 0, { page: 0, size: 20, totalElements: 0, totalPages: 0 }],
    [0, 20, 1, { page: 0, size: 20, totalElements: 1, totalPages: 1 }],
    [0, 20, 20, { page: 0, size: 20, totalElements: 20, totalPages: 1 }],
    [1, 20, 21, { page: 1, size: 20, totalElements: 21, totalPages: 2 }],
    [3, 4, 6, { page: 3, size: 4, totalElements: 6, totalPages: 2 }],
    [0, 0, 0, { page: 0, size: 0, totalElements: 0, totalPages: 0 }],
  ])('page %d, size %d, total %d', (page, size, total, meta) => {
    expect(paginationMeta(page, size, total)).toEqual(meta);
  });

  it('keeps the largest offset an exact integer', () => {
    expect(Number.isSafeInteger(MAX_PAGE * MAX_PAGE_SIZE)).toBe(true);
  });
});
