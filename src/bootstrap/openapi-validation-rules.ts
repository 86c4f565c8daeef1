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
  for (const [name, schema] of Object.entries(schemas)) {
    const target = dtos.get(name);
    if (!target || !schema.properties) continue;
    for (const rule of rulesOf(target)) {
      const property = schema.properties[rule.propertyName] as Json | undefined;
      if (!property || property.$ref || property.allOf || rule.groups?.length) continue;
      const at = rule.each && property.type === 'array' ? (property.items as Json) : property;
      if (!at || at.$ref) continue;
      apply(at, property, rule);
    }
  }
}

/** A DTO's rules, patterns first (a date rule reads the pattern). */
function rulesOf(target: DtoClass): ValidationMetadata[] {
  return [...getMetadataStorage().getTargetValidationMetadatas(target, '', true, false)].sort(
    (a, b) => Number(b.name === 'matches') - Number(a.name === 'matches'),
  );
}

/**
 * The same rules on query parameters: nest/swagger flattens a query DTO
 * into parameters, so each operation's query parameters get the rules of
 * the DTO classes its handler takes (`paramDtos`, keyed by the operation's
 * default id, Controller_method).
 */
export function addParameterRules(
  paths: Record<string, Record<string, Json>>,
  paramDtos: Map<string, DtoClass[]>,
): void {
  for (const ops of Object.values(paths))
    for (const op of Object.values(ops)) {
      const classes = paramDtos.get(String(op?.operationId)) ?? [];
      for (const p of (op?.parameters ?? []) as Json[]) {
        if (p.in !== 'query' || !p.schema || p.schema.$ref) continue;
        for (const dto of classes)
          for (const rule of rulesOf(dto))
            if (rule.propertyName === p.name && !rule.groups?.length)
              apply(p.schema, p.schema, rule);
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
  return dtoDiscovery(app).byName;
}

/** The DTO classes each handler takes, by its default operation id (Controller_method). */
export function paramDtosOf(app: INestApplication): Map<string, DtoClass[]> {
  return dtoDiscovery(app).byHandler;
}

function dtoDiscovery(app: INestApplication): {
  byName: Map<string, DtoClass>;
  byHandler: Map<string, DtoClass[]>;
} {
  const found = new Map<string, DtoClass>();
  const byHandler = new Map<string, DtoClass[]>();
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
      const controller = (wrapper.metatype as { name: string }).name;
      for (const method of Object.getOwnPropertyNames(proto)) {
        const params = (Reflect.getMetadata('design:paramtypes', proto, method) ?? []) as unknown[];
        params.forEach(visit);
        byHandler.set(
          `${controller}_${method}`,
          params.map(classOf).filter((c): c is DtoClass => c !== null),
        );
      }
    }
  return { byName: found, byHandler };
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

const DATE_ONLY = '^\\d{4}-\\d{2}-\\d{2}$';

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
    case 'isUrl':
      at.format ??= 'uri';
      break;
    case 'isDateString':
    case 'isISO8601':
      // A date alone when the rules also pin YYYY-MM-DD; an instant otherwise.
      if (!at.pattern || at.pattern === DATE_ONLY) at.format ??= 'date';
      break;
    case 'isIn':
      if (Array.isArray(first) && !at.enum) at.enum = [...(first as unknown[])];
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
