// The project's lint rules. Type-aware: the promise rules need the types to tell a Promise from
// a value. typescript-eslint resolves TypeScript 6 from this folder (see package.json).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['**/node_modules/**', '**/dist/**', 'bench/results/**', 'coverage/**', '.data/**', 'tests/console/screenshots/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: {
        projectService: {
          allowDefaultProject: [
            '*.js',
            '*.mjs',
            'scripts/*.mjs',
            'apps/console/*.mjs',
            'apps/console/*.d.mts',
            'tools/lint/*.js',
            'bench/peer/*.mjs',
          ],
        },
        tsconfigRootDir: new URL('../..', import.meta.url).pathname,
      },
    },
    rules: {
      // a promise is awaited, returned, or handed to something that handles its rejection
      '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: true }],
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/await-thenable': 'error',
      // an async function may have nothing to await: it keeps an interface's promise contract
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/prefer-promise-reject-errors': 'error',
      // what the code already holds to by hand
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-import-type-side-effects': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // a binding a closure reads before its one assignment (wiring order) stays a let
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // factories return plain objects of closures, never `this`-bound methods: passing one on is safe
      '@typescript-eslint/unbound-method': 'off',
      'no-var': 'error',
      'object-shorthand': 'error',
    },
  },
  {
    // tests and benchmarks read answers whose shape is what they check: untyped JSON is their material
    files: ['**/*.test.ts', 'tests/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
    },
  },
  {
    files: ['apps/console/src/**/*.tsx', 'apps/console/src/**/*.ts', 'tests/console/src/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
  },
);
