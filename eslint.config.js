// ESLint flat config: type-checked rules, size/complexity limits, and the dependency
// direction of the architecture: imports point down the floors of src/ and form no cycle
// (scripts/lint/floors.ts, the local plugin scripts/lint/plugin.ts); client/ knows no Kubernetes.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { cofferPlugin } from './scripts/lint/plugin.ts';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'coverage/', 'charts/', 'crds/', 'config/', 'bin/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      complexity: ['error', 12],
      'max-depth': ['error', 3],
      'max-params': ['error', 4],
      'max-lines': ['error', { max: 400, skipBlankLines: true, skipComments: true }],
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
      'no-console': 'error',
    },
  },
  {
    files: ['src/**/*.ts'],
    plugins: { coffer: cofferPlugin },
    rules: { 'coffer/floors': 'error', 'coffer/no-cycle': 'error' },
  },
  {
    files: ['src/client/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: '@kubernetes/client-node', message: 'src/client must not depend on Kubernetes.' }],
        },
      ],
    },
  },
  {
    // Tests, scripts and the CLI may print and may be longer-form.
    files: ['test/**/*.ts', 'src/**/*.test.ts', 'scripts/**/*.ts', 'src/cli/**/*.ts'],
    rules: {
      'no-console': 'off',
      'max-lines-per-function': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    files: ['**/*.js'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
