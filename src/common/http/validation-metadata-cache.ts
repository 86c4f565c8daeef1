import { getMetadataStorage } from 'class-validator';

type Storage = ReturnType<typeof getMetadataStorage>;
type Lookup = Storage['getTargetValidationMetadatas'];

const INSTALLED = Symbol.for('joma.validationMetadataCache');

/**
 * class-validator looks up a class's rules on every `validate()` by testing
 * the class against every decorated class the process knows
 * (`prototype instanceof` per class, for inherited rules). Joma declares a
 * few hundred DTO classes, so each validation of a request body paid about
 * 50 us for a lookup whose answer never changes once the classes are
 * loaded (profiled under `npm run bench:api`, issue #12).
 *
 * This remembers each answer per class and options, and forgets them all
 * whenever a rule is registered (a class loaded later), so it can never
 * answer from an older set of rules. Answers are shared arrays, which
 * class-validator only reads.
 */
export function cacheValidationMetadata(storage: Storage = getMetadataStorage()): void {
  const marked = storage as Storage & { [INSTALLED]?: true };
  if (marked[INSTALLED]) return;
  marked[INSTALLED] = true;
  let cache = new Map<unknown, Map<string, ReturnType<Lookup>>>();
  const lookup: Lookup = storage.getTargetValidationMetadatas.bind(storage);
  const forget = () => {
    cache = new Map();
  };
  for (const register of [
    'addValidationMetadata',
    'addConstraintMetadata',
    'addValidationSchema',
  ] as const) {
    const original = (storage[register] as (...args: unknown[]) => void).bind(storage);
    (storage as unknown as Record<string, unknown>)[register] = (...args: unknown[]) => {
      forget();
      original(...args);
    };
  }
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    const options = `${schema}\u0000${always}\u0000${strictGroups}\u0000${groups?.join('\u0001') ?? ''}`;
    let byOptions = cache.get(target);
    if (!byOptions) cache.set(target, (byOptions = new Map()));
    let found = byOptions.get(options);
    if (!found) {
      found = lookup(target, schema, always, strictGroups, groups);
      byOptions.set(options, found);
    }
    return found;
  };
}
