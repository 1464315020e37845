// ESLint (flat config): typescript-eslint's recommended rules, and the layering of src/README.md as
// import rules, so a broken layer is a lint error rather than a review comment.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

// A forbidden import is a gitignore-style glob, or a RegExp of the import path as written.
const layer = (files, forbidden) => ({
  files,
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: forbidden.map(([pattern, message]) =>
          pattern instanceof RegExp ? { regex: pattern.source, message } : { group: [pattern], message },
        ),
      },
    ],
  },
});

const SURFACES = ['**/surfaces/**', 'A surface is composed by app.ts only: nothing imports a surface.'];
const CONTAINER = ['**/container.js', 'Only app.ts and scripts import the container; a service declares the narrow dependencies it takes.'];
const REPOSITORIES = ['**/*.repository.js', "A repository is its module's internal: go through the module's service."];
// A module is a boundary: another module enters it only through its index.ts (src/modules/README.md).
const MODULE_FILES = [
  /^\.\.\/(?!\.\.?\/)[^/]+\/(?!index\.js$)/,
  "Another module is entered only through its index.ts: import from '../<module>/index.js' (export what you need there).",
];
const MODULES_BY_PATH = [/(^|\/)modules\/[^/]+\/(?!index\.js$)/, 'A module is entered only through its index.ts, not by path.'];
const CONTAINER_MODULES = [
  /^\.\/modules\/[^/]+\/(?!index\.js$)/,
  "The container takes each module from its index.ts, so its imports show the modules' real dependencies.",
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'var/**', 'coverage/**', 'clients/**', 'src/db/types.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  // Type-aware rules (typescript-eslint's recommendedTypeChecked: the rules above plus these): floating
  // and misused promises, `any` leaking out of untyped values, unbound methods. Types come from
  // tsconfig.json through the project service.
  {
    files: ['**/*.ts'],
    extends: [tseslint.configs.recommendedTypeCheckedOnly],
    // vitest.fast.config.ts is outside tsconfig.json's include: the project service gives it a default project.
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['vitest.fast.config.ts'] }, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // An async function without await still returns a promise, the contract of what it implements
      // (an adapter's interface, a Fastify plugin, a job handler); dropping `async` would turn a
      // rejection into a synchronous throw.
      '@typescript-eslint/require-await': 'off',
      // Rejecting with a caught error passes it on as it came; the rule still wants an Error where a
      // value is built on the spot.
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingAny: true, allowThrowingUnknown: true }],
    },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  // A route reads the credential its hooks checked through apiKeyOf/userOf/webhookProviderOf
  // (plugins/auth.ts) and agentCustomerOf (surfaces/agent/verified-session.ts), never with `!`.
  {
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            "TSNonNullExpression > MemberExpression[object.name='request'][property.name=/^(apiKey|user|agentCustomer|webhookProvider)$/]",
          message: 'Read the credential with apiKeyOf/userOf/webhookProviderOf(request) or agentCustomerOf(request).',
        },
      ],
    },
  },
  // Layers: surfaces -> modules -> db, lib (and the infrastructure folders beside them).
  layer(
    ['src/modules/**'],
    [SURFACES, CONTAINER, ['**/plugins/**', 'Modules know nothing of HTTP plugins.'], MODULE_FILES, MODULES_BY_PATH],
  ),
  layer(['src/container.ts'], [CONTAINER_MODULES]),
  layer(['src/plugins/**'], [SURFACES, CONTAINER, REPOSITORIES, MODULES_BY_PATH]),
  layer(
    ['src/surfaces/**'],
    [CONTAINER, REPOSITORIES, MODULES_BY_PATH, ['**/db/database.js', 'Routes reach the database through services.']],
  ),
  layer(['src/demo/**', 'src/cli/**', 'src/ops/**', 'src/app.ts', 'src/server.ts'], [MODULES_BY_PATH]),
  layer(
    ['src/lib/**'],
    [
      SURFACES,
      CONTAINER,
      ['**/modules/**', 'lib/ is stateless helpers: it imports no module.'],
      ['**/plugins/**', 'lib/ imports no plugin.'],
      ['**/db/**', 'lib/ imports no database code.'],
    ],
  ),
  layer(['src/db/**'], [SURFACES, CONTAINER, ['**/modules/**', 'db/ imports no module.'], ['**/plugins/**', 'db/ imports no plugin.']]),
  layer(
    ['src/jobs/**', 'src/mail/**', 'src/webhooks/**', 'src/adapters/**', 'src/documents/**'],
    [SURFACES, MODULES_BY_PATH, ['**/plugins/**', 'Infrastructure imports no HTTP plugin.']],
  ),
  // Refusing control characters (U+0000 above all) is the point of these patterns.
  {
    files: ['src/plugins/text-input.ts', 'src/mail/layout.ts', 'src/surfaces/partner/plan-change.routes.ts'],
    rules: { 'no-control-regex': 'off' },
  },
  // Untyped JSON: the OpenAPI objects @fastify/swagger hands to transforms, Kysely's compiled query
  // parts, and tool arguments before their route's schema has validated them.
  {
    files: ['src/plugins/docs.ts', 'src/db/together.ts', 'src/surfaces/agent/mcp.tools.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['test/**', 'bench/**', 'scripts/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  // Tests, bench and scripts read untyped JSON on purpose (responses, fixtures, documents): its shape is
  // what they assert or print, so `any` flowing from it is not a defect there.
  {
    files: ['test/**', 'bench/**', 'scripts/**'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-base-to-string': 'off',
    },
  },
);
