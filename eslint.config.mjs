// ESLint 10 flat config: typescript-eslint's recommended rules, which need
// no type information, everywhere; one import order (simple-import-sort);
// and one type-aware rule, no-floating-promises, on src/ only (spec files
// aside), the only files that pay for type information, so `eslint .` stays
// fast on 2 cores. Formatting is left to Prettier (eslint-config-prettier
// turns off every stylistic rule).
import { defineConfig, globalIgnores } from 'eslint/config';
import prettier from 'eslint-config-prettier';
import simpleImportSort from 'eslint-plugin-simple-import-sort';
import tseslint from 'typescript-eslint';

const nodeGlobals = {
  require: 'readonly',
  module: 'writable',
  exports: 'writable',
  __dirname: 'readonly',
  __filename: 'readonly',
  process: 'readonly',
  console: 'readonly',
  Buffer: 'readonly',
};

export default defineConfig(
  globalIgnores([
    'node_modules/',
    'dist/',
    'coverage/',
    '.data/',
    'bench/report*.json',
    // Generated from the OpenAPI document (npm run sdk:generate).
    'clients/typescript/src/generated/',
    'clients/typescript/dist/',
    // The dashboard's build (scripts/build-dashboard.mjs).
    'dashboard/dist/',
  ]),
  tseslint.configs.recommended,
  prettier,
  {
    files: ['**/*.ts', '**/*.tsx'],
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    // One import order everywhere, fixed by `eslint --fix`: side-effect imports
    // (reflect-metadata) first, then packages (node: built-ins among them),
    // then the project's own paths, each group sorted; exports likewise.
    plugins: { 'simple-import-sort': simpleImportSort },
    rules: {
      'simple-import-sort/imports': 'error',
      'simple-import-sort/exports': 'error',
      // `_name` marks a parameter or binding that is deliberately unused.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          caughtErrors: 'none',
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  {
    // The service's own code: a promise is awaited, returned, or marked `void`
    // on purpose (a fire-and-forget call must say so). Type-aware, so src/ only.
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.spec.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: { '@typescript-eslint/no-floating-promises': 'error' },
  },
  {
    files: ['test/**/*.ts', '**/*.spec.ts'],
    rules: {
      // Tests reach into responses and rows whose shape they assert on.
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    languageOptions: { globals: nodeGlobals, sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  { files: ['**/*.mjs'], languageOptions: { sourceType: 'module' } },
);
