// Lint: typescript-eslint's recommended rules, plus the layer rules that keep the folders honest.
import tseslint from 'typescript-eslint';

// Pi speaks its own vocabulary inside the worker; the model and the view know only the wire's.
const noPi = [
  { group: ['@earendil-works/*'], message: 'Pi is loaded in the worker only: speak the wire (src/shared/wire/events.ts).' },
  { group: ['**/worker/*', '**/pi/*'], message: "The worker's code stays in the worker: share it through src/shared." },
];

const noHostOrBrowser = {
  paths: [{ name: 'vscode', message: 'src/shared is plain TypeScript: no vscode.' }],
  patterns: [{ group: ['node:*'], message: 'src/shared is plain TypeScript: no Node modules.' }, ...noPi],
};

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.vscode-test/**', 'test-results/**', '*.vsix'] },
  ...tseslint.configs.recommended,
  // The CommonJS shim injected into the Pi bundle must use require.
  { files: ['src/pi/importMetaUrlShim.js'], rules: { '@typescript-eslint/no-require-imports': 'off' } },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  // Type-aware checks where they catch real bugs, on every layer: a promise nobody awaits or handles, a switch that misses a case.
  {
    files: ['src/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
    },
  },
  // The protocol and reducer run on both sides: no vscode, no Node, no DOM globals.
  {
    files: ['src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', noHostOrBrowser],
      'no-restricted-globals': ['error', 'window', 'document', 'process', 'require', 'Buffer'],
    },
  },
  // The webview is browser code: it talks to the host only through postMessage.
  {
    files: ['src/webview/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'The webview cannot use the vscode API.' }],
          patterns: [{ group: ['node:*', '../extension/*'], message: 'The webview is browser code.' }, ...noPi],
        },
      ],
    },
  },
  // The main thread talks to the Pi worker only through the shared protocol; the worker has no vscode.
  {
    files: ['src/extension/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: ['../worker/*', '../pi/*'], message: 'The main thread never loads Pi: use src/shared/wire/workerProtocol.ts.', allowTypeImports: false },
          ],
        },
      ],
    },
  },
  {
    files: ['src/worker/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'The Pi worker has no vscode API: ask the main thread.' }] }] },
  },
  // Tests may use any, and the pi types in fixtures.
  {
    files: ['test/**/*.ts', 'scripts/**/*.ts', 'bench/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
