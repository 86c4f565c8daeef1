// decisions.md section 18: no code reaches into a library's internals
// (private or protected members, patched prototypes, replaced methods, a
// package's private files). A measured gain that needs one lives in
// src/platform/<library>.ts, behind a switch, with a test pinned to the
// library's version; this check keeps every other file of src/ clean
// (spec files aside).
//
// It reads the TypeScript program of tsconfig.json, with its type checker:
// - a member access (`a.b`, `a['b']`, `const { b } = a`) whose member is
//   declared private or protected, or named `_...`, by a library (a
//   declaration under node_modules/), also through a cast (`(a as any).b`,
//   `(a as unknown as { b: T }).b`: the member is looked up on `a`'s own type).
//   One use of a protected member is the library's own extension point, not
//   a reach: an override calling the stock version of itself
//   (`protected override m() { ... super.m() ... }`);
// - an assignment to `X.prototype.y` or `Object.defineProperty(X.prototype...)`,
//   and an assignment that replaces a library's method (`pool.query = ...`);
// - a package's private files: an import (`import`, `export ... from`,
//   `import()`, `import('x').T`, `require`) of a subpath that the package's
//   "exports" does not name as an entry point of its own (a wildcard such as
//   TypeORM's "./*" is no entry point), or of a lib/dist/build/internal path.
// What a type cannot show is not seen: an `any` that came from elsewhere
// (`const r: any = runner; r.databaseConnection`), or a shape declared by hand
// for a field the library's types do not declare at all.
//
// Before it reads src/, it proves itself on fixtures kept in this file
// (FIXTURES below): every line marked `// FLAG` must be reported, and no
// other. `--self-test` runs only that.
import { existsSync, readFileSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

import ts from 'typescript';

const started = performance.now();
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const selfTestOnly = process.argv.includes('--self-test');

/** Fixtures, served to the compiler from memory (never on disk, so tsc, eslint and prettier never see them). */
const FIXTURE_DIR = join(root, 'src', '__library-internals-fixtures__');
const FIXTURES = {
  // The old src/database/hot-query.ts: a protected field read through an intersection type.
  'hot-query-old.ts': `
import type { Pool, PoolClient, QueryConfig, QueryResult } from 'pg';
import type { DataSource, EntityManager } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver'; // FLAG
import type { PostgresQueryRunner } from 'typeorm/driver/postgres/PostgresQueryRunner'; // FLAG
export const poolOf = (source: DataSource): Pool => (source.driver as PostgresDriver).master as Pool;
export async function runStatement(em: EntityManager, query: QueryConfig): Promise<QueryResult> {
  const runner = em.queryRunner as (PostgresQueryRunner & { databaseConnection?: PoolClient }) | undefined;
  return runner?.isTransactionActive && runner.databaseConnection // FLAG
    ? await runner.databaseConnection.query(query) // FLAG
    : await poolOf(em.connection).query(query);
}
`,
  'reaches.ts': `
import { ApplyValueTransformers } from 'typeorm/util/ApplyValueTransformers'; // FLAG
import { ValidationPipe } from '@nestjs/common';
import { getMetadataStorage } from 'class-validator';
import { Pool } from 'pg';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
export const t = ApplyValueTransformers;
export function reach(pipe: ValidationPipe, pool: Pool) {
  const a = (pipe as any).isTransformEnabled; // FLAG
  const b = (pipe as unknown as { validatorOptions: unknown }).validatorOptions; // FLAG
  const c = (<any>pipe)['expectedType']; // FLAG
  const d = getMetadataStorage()['validationMetadatas']; // FLAG
  const { constraintMetadatas } = getMetadataStorage() as any; // FLAG
  const e = (pool as any)._clients; // FLAG
  pool.query = (() => undefined) as never; // FLAG
  (Pool.prototype as any).connect = () => undefined; // FLAG
  Object.defineProperty(Pool.prototype, 'end', { value: () => undefined }); // FLAG
  return [a, b, c, d, e, constraintMetadatas];
}
export const lazy = () => import('pg/lib/client'); // FLAG
export type Lazy = import('typeorm/metadata/ColumnMetadata').ColumnMetadata; // FLAG
export class Pipe extends ValidationPipe {
  protected override isPrimitive(value: unknown): boolean {
    return super.isPrimitive(value) && this.isTransformEnabled; // FLAG
  }
  protected override toValidate(metadata: Parameters<ValidationPipe['transform']>[1]): boolean {
    return super.isBinary(metadata) || super.toValidate(metadata); // FLAG
  }
}
export class Adapter extends TransactionalAdapterTypeOrm {
  wrap() {
    return this.optionsFactory; // public: allowed
  }
}
`,
  'allowed.ts': `
import { setTimeout as sleep } from 'node:timers/promises';
import type { Pool } from 'pg';
import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { ok } from './own';
export async function run(em: EntityManager, source: DataSource, runner: QueryRunner) {
  await sleep(1);
  const client = await runner.connect();
  const pool = (source.driver as { master?: Pool }).master;
  const own = new Own();
  return [client, pool, runner.isTransactionActive, em.connection, own._seen, own.peek(), ok];
}
class Base {
  protected hidden = 1;
}
class Own extends Base {
  _seen = 0;
  peek() {
    return this.hidden;
  }
}
`,
  'own.ts': `export const ok = 1;\n`,
};
const fixturePath = (name) => join(FIXTURE_DIR, name);

const configPath = join(root, 'tsconfig.json');
const { config, error } = ts.readConfigFile(configPath, ts.sys.readFile);
if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
const parsed = ts.parseJsonConfigFileContent(config, ts.sys, root, undefined, configPath);
const options = { ...parsed.options, incremental: false, noEmit: true };

const rel = (file) => relative(root, file).split(sep).join('/');
const checkedFiles = selfTestOnly
  ? []
  : parsed.fileNames.filter((f) => {
      const r = rel(f);
      return r.startsWith('src/') && !r.endsWith('.spec.ts') && !r.startsWith('src/platform/');
    });

const fixtureText = new Map(Object.entries(FIXTURES).map(([n, t]) => [fixturePath(n), t]));
const host = ts.createCompilerHost(options, true);
const stockGetSourceFile = host.getSourceFile.bind(host);
host.getSourceFile = (name, languageVersion, onError, createNew) =>
  fixtureText.has(name)
    ? ts.createSourceFile(name, fixtureText.get(name), languageVersion, true)
    : stockGetSourceFile(name, languageVersion, onError, createNew);
const stockFileExists = host.fileExists.bind(host);
host.fileExists = (name) => fixtureText.has(name) || stockFileExists(name);
const stockReadFile = host.readFile.bind(host);
host.readFile = (name) => fixtureText.get(name) ?? stockReadFile(name);

const program = ts.createProgram([...checkedFiles, ...fixtureText.keys()], options, host);
const checker = program.getTypeChecker();

const inLibrary = (decl) => /[\\/]node_modules[\\/]/.test(decl.getSourceFile().fileName);

/** Why a member's declarations make it a library's internal, or null. */
function internalMember(symbol, name) {
  for (const decl of symbol?.declarations ?? []) {
    if (!inLibrary(decl)) continue;
    const flags = ts.getCombinedModifierFlags(decl);
    if (flags & ts.ModifierFlags.Private) return `a library's private member '${name}'`;
    if (flags & ts.ModifierFlags.Protected) return `a library's protected member '${name}'`;
    if (decl.name && ts.isPrivateIdentifier(decl.name))
      return `a library's private member '${name}'`;
  }
  return null;
}

const skipOuter = (node) => {
  while (ts.isParenthesizedExpression(node) || ts.isNonNullExpression(node)) node = node.expression;
  return node;
};

/** The expression a cast was applied to (`(x as T)`, `<T>x`, `x satisfies T`), or null. */
function castSource(node) {
  let e = skipOuter(node);
  let cast = false;
  while (ts.isAsExpression(e) || ts.isTypeAssertionExpression(e) || ts.isSatisfiesExpression(e)) {
    e = skipOuter(e.expression);
    cast = true;
  }
  return cast ? e : null;
}

/** The finding for member `name` of `object` (an expression), or null. */
function memberFinding(object, name, symbol) {
  const own = internalMember(symbol, name);
  if (own) return own;
  // Through a cast: the member as the object's own type (before the cast) declares it.
  const source = castSource(object);
  if (source) {
    const type = checker.getApparentType(checker.getTypeAtLocation(source));
    const before = internalMember(checker.getPropertyOfType(type, name), name);
    if (before) return `${before} (through a cast)`;
  }
  // A `_...` member: a library's own (declared under node_modules), or one no type declares.
  if (name.startsWith('_')) {
    const decls = symbol?.declarations ?? [];
    if (decls.length === 0 || decls.some(inLibrary))
      return `a member named '${name}' (a library's private field by convention)`;
  }
  return null;
}

/** `super.m` inside the class member `m` that overrides it (the stock version of itself). */
function callsOwnStockVersion(node) {
  if (node.expression.kind !== ts.SyntaxKind.SuperKeyword) return false;
  let member = node.parent;
  while (member && !ts.isClassElement(member)) member = member.parent;
  return (
    !!member &&
    !!member.name &&
    ts.isIdentifier(member.name) &&
    member.name.text === node.name.text &&
    !!(ts.getCombinedModifierFlags(member) & ts.ModifierFlags.Override)
  );
}

/** A library method (a method declared under node_modules) being replaced by an assignment. */
function replacedMethod(target) {
  if (!ts.isPropertyAccessExpression(target) && !ts.isElementAccessExpression(target)) return null;
  const symbol = checker.getSymbolAtLocation(
    ts.isPropertyAccessExpression(target) ? target.name : target.argumentExpression,
  );
  const decl = symbol?.declarations?.find(inLibrary);
  if (decl && (ts.isMethodDeclaration(decl) || ts.isMethodSignature(decl)))
    return `a library's method replaced ('${symbol.name}' of ${rel(decl.getSourceFile().fileName).replace(/^.*node_modules\//, '')})`;
  return null;
}

const touchesPrototype = (node) => {
  for (let e = skipOuter(node); ;) {
    if (ts.isPropertyAccessExpression(e)) {
      if (e.name.text === 'prototype') return true;
      e = skipOuter(e.expression);
    } else if (ts.isElementAccessExpression(e)) e = skipOuter(e.expression);
    else if (ts.isAsExpression(e) || ts.isTypeAssertionExpression(e)) e = skipOuter(e.expression);
    else return false;
  }
};

const packageJsons = new Map();
function packageJson(pkg, fromFile) {
  for (let dir = dirname(fromFile); ; dir = dirname(dir)) {
    const path = join(dir, 'node_modules', pkg, 'package.json');
    if (packageJsons.has(path)) return packageJsons.get(path);
    if (existsSync(path)) {
      const json = JSON.parse(readFileSync(path, 'utf8'));
      packageJsons.set(path, json);
      return json;
    }
    if (dirname(dir) === dir) return null;
  }
}

/** The finding for an import of `spec` from `file`, or null. */
function importFinding(spec, file) {
  if (spec.startsWith('.') || spec.startsWith('/') || isBuiltin(spec)) return null;
  const parts = spec.split('/');
  const nameLength = spec.startsWith('@') ? 2 : 1;
  if (parts.length <= nameLength) return null;
  // A project path (tsconfig baseUrl/paths) resolves outside node_modules.
  const resolved = ts.resolveModuleName(spec, file, options, host).resolvedModule;
  if (resolved && !resolved.isExternalLibraryImport) return null;
  const pkg = parts.slice(0, nameLength).join('/');
  const subpath = `./${parts.slice(nameLength).join('/')}`;
  const exports = packageJson(pkg, file)?.exports;
  const entryPoint =
    exports &&
    typeof exports === 'object' &&
    !Array.isArray(exports) &&
    Object.hasOwn(exports, subpath);
  if (entryPoint && !/\/(?:lib|dist|build|internal)\//.test(`${subpath}/`)) return null;
  return `a package's private files ('${spec}' is no entry point of ${pkg}'s "exports")`;
}

/** Findings of one file: [line (1-based), what, the line's text]. */
function findingsOf(sourceFile) {
  const found = [];
  const add = (node, what) => {
    const { line } = sourceFile.getLineAndCharacterOfPosition(node.getStart(sourceFile));
    const text = sourceFile.text.split('\n')[line].trim();
    found.push([line + 1, what, text]);
  };
  const visit = (node) => {
    let what = null;
    if (ts.isPropertyAccessExpression(node)) {
      if (callsOwnStockVersion(node)) return ts.forEachChild(node, visit);
      what = memberFinding(node.expression, node.name.text, checker.getSymbolAtLocation(node.name));
    } else if (
      ts.isElementAccessExpression(node) &&
      ts.isStringLiteralLike(node.argumentExpression)
    ) {
      const name = node.argumentExpression.text;
      const type = checker.getApparentType(checker.getTypeAtLocation(node.expression));
      what = memberFinding(node.expression, name, checker.getPropertyOfType(type, name));
    } else if (ts.isBindingElement(node) && ts.isObjectBindingPattern(node.parent)) {
      const key = node.propertyName ?? node.name;
      const name = ts.isIdentifier(key) || ts.isStringLiteralLike(key) ? key.text : null;
      const declaration = node.parent.parent;
      if (name && ts.isVariableDeclaration(declaration) && declaration.initializer) {
        const type = checker.getApparentType(checker.getTypeAtLocation(node.parent));
        what = memberFinding(declaration.initializer, name, checker.getPropertyOfType(type, name));
      }
    } else if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
      node.operatorToken.kind <= ts.SyntaxKind.LastAssignment
    ) {
      if (touchesPrototype(node.left)) what = 'a patched prototype';
      else what = replacedMethod(node.left);
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const [first] = node.arguments;
      if (
        ts.isPropertyAccessExpression(callee) &&
        ts.isIdentifier(callee.expression) &&
        ['Object', 'Reflect'].includes(callee.expression.text) &&
        ['defineProperty', 'defineProperties', 'assign', 'setPrototypeOf'].includes(
          callee.name.text,
        ) &&
        first &&
        touchesPrototype(first)
      )
        what = 'a patched prototype';
      else if (
        (callee.kind === ts.SyntaxKind.ImportKeyword ||
          (ts.isIdentifier(callee) && callee.text === 'require')) &&
        first &&
        ts.isStringLiteralLike(first)
      )
        what = importFinding(first.text, sourceFile.fileName);
    } else if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteralLike(node.moduleSpecifier)
    ) {
      what = importFinding(node.moduleSpecifier.text, sourceFile.fileName);
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteralLike(node.moduleReference.expression)
    ) {
      what = importFinding(node.moduleReference.expression.text, sourceFile.fileName);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteralLike(node.argument.literal)
    ) {
      what = importFinding(node.argument.literal.text, sourceFile.fileName);
    }
    if (what) add(node, what);
    ts.forEachChild(node, visit);
  };
  visit(sourceFile);
  // One finding per line and kind (a chain such as `a.b.c` may report its member once).
  const seen = new Set();
  return found.filter(
    ([line, what]) => !seen.has(`${line} ${what}`) && seen.add(`${line} ${what}`),
  );
}

// The self-test: exactly the lines marked FLAG, in every fixture.
const selfTestErrors = [];
let marked = 0;
for (const [path, text] of fixtureText) {
  const expected = new Set();
  text.split('\n').forEach((line, i) => {
    if (/\/\/ FLAG\s*$/.test(line)) expected.add(i + 1);
  });
  marked += expected.size;
  const got = new Set(findingsOf(program.getSourceFile(path)).map(([line]) => line));
  for (const line of expected)
    if (!got.has(line))
      selfTestErrors.push(`missing:    ${rel(path)}:${line}: ${text.split('\n')[line - 1].trim()}`);
  for (const line of got)
    if (!expected.has(line))
      selfTestErrors.push(`unexpected: ${rel(path)}:${line}: ${text.split('\n')[line - 1].trim()}`);
}
if (selfTestErrors.length) {
  console.error('library internals self-test FAILED: the check does not fire as expected.');
  for (const e of selfTestErrors) console.error(`  ${e}`);
  process.exitCode = 1;
}

const found = [];
for (const file of checkedFiles) {
  const sourceFile = program.getSourceFile(file);
  if (!sourceFile) continue;
  for (const [line, what, text] of findingsOf(sourceFile))
    found.push(`${rel(file)}:${line}: ${what}: ${text}`);
}
const seconds = ((performance.now() - started) / 1000).toFixed(1);
if (found.length) {
  console.error('Library internals reached outside src/platform/ (decisions.md section 18):');
  for (const f of found) console.error(`  ${f}`);
  process.exitCode = 1;
} else if (!selfTestErrors.length) {
  const scope = selfTestOnly
    ? 'src/ not read (--self-test)'
    : `no private, protected or _-named library member, patched prototype, replaced library method or package-private import in the ${checkedFiles.length} files of src/ outside src/platform/ (specs aside)`;
  console.log(
    `library internals: ${scope}; self-test: all ${marked} marked reaches caught (${seconds} s)`,
  );
}
