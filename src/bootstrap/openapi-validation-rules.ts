import type { INestApplication } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { DECORATORS } from '@nestjs/swagger';
import { getMetadataStorage } from 'class-validator';

/** One rule as class-validator's public metadata API gives it. */
type ValidationMetadata = ReturnType<
  ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']
>[number];

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- schema objects of any shape
type Json = Record<string, any>;
/** A DTO class, as class-validator keys its metadata. */
export type DtoClass = abstract new (...args: never[]) => unknown;

/**
 * The rules the one ValidationPipe enforces, written into the document's
 * schemas from the same class-validator decorators, so the document cannot
 * drift from what the service refuses: lengths, patterns, array sizes,
 * email format, numeric bounds. Matched by class name (the name
 * @nestjs/swagger gives a DTO's schema), inherited rules included.
 * Conditional rules (@ValidateIf) are left to the descriptions.
 */
export function addValidationRules(
  schemas: Record<string, Json>,
  dtos: Map<string, DtoClass>,
): void {
  const storage = getMetadataStorage();
  for (const [name, schema] of Object.entries(schemas)) {
    const target = dtos.get(name);
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

/**
 * The DTO classes the routes take, by name, found through public metadata
 * only: every controller method's parameter types (TypeScript's
 * `design:paramtypes`), then, property by property, the classes their
 * `@ApiProperty` types and `design:type` name, recursively.
 */
export function dtoClassesOf(app: INestApplication): Map<string, DtoClass> {
  const found = new Map<string, DtoClass>();
  const visit = (candidate: unknown): void => {
    const dto = classOf(candidate);
    if (!dto || found.get(dto.name) === dto) return;
    found.set(dto.name, dto);
    const proto = dto.prototype as object;
    const names = (Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES_ARRAY, proto) ??
      []) as string[];
    for (const key of names.map((n) => n.replace(/^:/, ''))) {
      const meta = Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, proto, key) as
        { type?: unknown } | undefined;
      visit(meta?.type);
      visit(Reflect.getMetadata('design:type', proto, key));
    }
  };
  for (const module of app.get(ModulesContainer).values())
    for (const wrapper of module.controllers.values()) {
      const proto = (wrapper.metatype as { prototype?: object } | null)?.prototype;
      if (!proto) continue;
      for (const method of Object.getOwnPropertyNames(proto))
        for (const param of (Reflect.getMetadata('design:paramtypes', proto, method) ??
          []) as unknown[])
          visit(param);
    }
  return found;
}

/** A DTO class, from a class or a `() => Class` thunk; null for built-ins, enums and the rest. */
function classOf(candidate: unknown): DtoClass | null {
  if (typeof candidate !== 'function') return null;
  // A thunk (`type: () => Dto`) has no prototype of its own; a class does.
  const fn = candidate as { prototype?: unknown; name: string };
  if (fn.prototype === undefined) {
    try {
      return classOf((candidate as () => unknown)());
    } catch {
      return null;
    }
  }
  if (BUILT_INS.has(candidate)) return null;
  return candidate as DtoClass;
}

const BUILT_INS = new Set<unknown>([
  String,
  Number,
  Boolean,
  Object,
  Array,
  Date,
  Buffer,
  Function,
]);

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
