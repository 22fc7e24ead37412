// ESLint: typescript-eslint's type-aware recommended rules — they catch the bugs that matter in an
// asynchronous proxy (floating and misused promises, unsafe `any` flowing into the judge) — plus Node's
// globals for the plain JavaScript fixtures. Formatting is Prettier's job, not ESLint's.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.cuonztech/**', '**/*.d.mts'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: globals.node,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // A promise nobody awaits is a call whose failure nobody sees: the proxy must never lose one.
      '@typescript-eslint/no-floating-promises': 'error',
      // `_`-prefixed parameters document an unused slot of a port's signature.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Port implementations are `async` so that every failure is a rejection, awaited or not.
      '@typescript-eslint/require-await': 'off',
      // JSON-RPC error codes arrive as plain numbers and are compared with the SDK's ErrorCode enum.
      '@typescript-eslint/no-unsafe-enum-comparison': 'off',
      // The harness matches control characters on purpose: it escapes them for terminals, XML and HTML.
      'no-control-regex': 'off',
      'no-misleading-character-class': 'off',
      // Errors become one line for the operator with the cause's message in it; stacks are never shown.
      'preserve-caught-error': 'off',
    },
  },
  {
    // Tests read untyped JSON (report files, JSON-RPC lines) and stub SDK shapes.
    files: ['test/**/*.ts', 'e2e/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  { files: ['**/*.mjs', '**/*.js'], ...tseslint.configs.disableTypeChecked },
);
