import { getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- schema objects of any shape
type Json = Record<string, any>;
/** A DTO class, as class-validator keys its metadata. */
type DtoClass = abstract new (...args: never[]) => unknown;

/**
 * The rules the one ValidationPipe enforces, written into the document's
 * schemas from the same class-validator decorators, so the document cannot
 * drift from what the service refuses: lengths, patterns, array sizes,
 * email format, numeric bounds. Matched by class name (the name
 * @nestjs/swagger gives a DTO's schema), inherited rules included.
 * Conditional rules (@ValidateIf) are left to the descriptions.
 */
export function addValidationRules(schemas: Record<string, Json>): void {
  const storage = getMetadataStorage() as unknown as {
    validationMetadatas: Map<DtoClass, ValidationMetadata[]>;
    getTargetValidationMetadatas(
      target: DtoClass,
      schema: string,
      always: boolean,
      strictGroups: boolean,
    ): ValidationMetadata[];
  };
  const classes = new Map<string, DtoClass>();
  for (const target of storage.validationMetadatas.keys()) classes.set(target.name, target);
  for (const [name, schema] of Object.entries(schemas)) {
    const target = classes.get(name);
    if (!target || !schema.properties) continue;
    for (const rule of storage.getTargetValidationMetadatas(target, '', true, false)) {
      const property = schema.properties[rule.propertyName] as Json | undefined;
      if (!property || property.$ref || property.allOf || rule.groups?.length) continue;
      const at = rule.each && property.type === 'array' ? (property.items as Json) : property;
      if (!at || at.$ref) continue;
      apply(at, property, rule);
    }
  }
}

function apply(at: Json, property: Json, rule: ValidationMetadata): void {
  const [first, second] = (rule.constraints ?? []) as unknown[];
  switch (rule.name) {
    case 'minLength':
      at.minLength ??= first;
      break;
    case 'maxLength':
      at.maxLength ??= first;
      break;
    case 'isLength':
      at.minLength ??= first;
      if (second !== undefined) at.maxLength ??= second;
      break;
    case 'matches':
      if (first instanceof RegExp && !first.flags) at.pattern ??= first.source;
      break;
    case 'isEmail':
      at.format ??= 'email';
      break;
    case 'min':
      at.minimum ??= first;
      break;
    case 'max':
      at.maximum ??= first;
      break;
    case 'arrayMinSize':
      property.minItems ??= first;
      break;
    case 'arrayMaxSize':
      property.maxItems ??= first;
      break;
  }
}
