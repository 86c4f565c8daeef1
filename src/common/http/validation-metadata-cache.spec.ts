import { IsInt, IsString, Min, getMetadataStorage, validate } from 'class-validator';
import { cacheValidationMetadata } from './validation-metadata-cache';

/** Field names of the rules class-validator applies to an instance of `target`. */
const rulesOf = (target: new () => object) =>
  getMetadataStorage()
    .getTargetValidationMetadatas(target, '', false, false)
    .map((m) => `${m.propertyName}:${m.name ?? m.type}`)
    .sort();

describe('cacheValidationMetadata', () => {
  class Base {
    @IsString()
    reference!: string;
  }
  class Create extends Base {
    @IsInt()
    @Min(1)
    amountMinor!: number;
  }

  beforeAll(() => cacheValidationMetadata());

  it('answers with the same rules as class-validator, inherited ones included', async () => {
    const uncachedAnswer = rulesOf(Create);
    expect(uncachedAnswer).toEqual(['amountMinor:isInt', 'amountMinor:min', 'reference:isString']);
    expect(rulesOf(Create)).toEqual(uncachedAnswer);
    const errors = await validate(Object.assign(new Create(), { reference: 7, amountMinor: 0 }));
    expect(errors.map((e) => e.property).sort()).toEqual(['amountMinor', 'reference']);
  });

  it('remembers an answer: the second lookup returns the very same array', () => {
    const storage = getMetadataStorage();
    expect(storage.getTargetValidationMetadatas(Create, '', false, false)).toBe(
      storage.getTargetValidationMetadatas(Create, '', false, false),
    );
  });

  it('forgets every answer when a rule is registered later (a class loaded after start-up)', async () => {
    const before = getMetadataStorage().getTargetValidationMetadatas(Base, '', false, false);
    // A class declared now adds rules to Base's subclass tree and to the storage.
    class Later extends Base {
      @IsInt()
      count!: number;
    }
    expect(getMetadataStorage().getTargetValidationMetadatas(Base, '', false, false)).not.toBe(
      before,
    );
    expect(rulesOf(Later)).toEqual(['count:isInt', 'reference:isString']);
    const errors = await validate(Object.assign(new Later(), { reference: 'r', count: 'x' }));
    expect(errors.map((e) => e.property)).toEqual(['count']);
  });

  it('keeps answers for different options apart', () => {
    const storage = getMetadataStorage();
    const all = storage.getTargetValidationMetadatas(Create, '', false, false);
    const grouped = storage.getTargetValidationMetadatas(Create, '', false, false, ['admin']);
    expect(grouped).not.toBe(all);
    expect(grouped).toEqual([]);
  });

  it('installs once, however often it is called', () => {
    const storage = getMetadataStorage();
    const lookup = storage.getTargetValidationMetadatas;
    cacheValidationMetadata();
    expect(storage.getTargetValidationMetadatas).toBe(lookup);
  });
});
