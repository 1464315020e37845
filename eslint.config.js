// ESLint (flat config): typescript-eslint's recommended rules, and the layering of src/README.md as
// import rules, so a broken layer is a lint error rather than a review comment.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

const layer = (files, forbidden) => ({
  files,
  rules: {
    'no-restricted-imports': ['error', { patterns: forbidden.map(([group, message]) => ({ group: [group], message })) }],
  },
});

const SURFACES = ['**/surfaces/**', 'A surface is composed by app.ts only: nothing imports a surface.'];
const CONTAINER = ['**/container.js', 'Only app.ts and scripts import the container; a service declares the narrow dependencies it takes.'];
const REPOSITORIES = ['**/*.repository.js', "A repository is its module's internal: go through the module's service."];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'var/**', 'coverage/**', 'clients/**', 'src/db/types.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
    },
  },
  // Layers: surfaces -> modules -> db, lib (and the infrastructure folders beside them).
  layer(['src/modules/**'], [SURFACES, CONTAINER, ['**/plugins/**', 'Modules know nothing of HTTP plugins.']]),
  layer(['src/plugins/**'], [SURFACES, CONTAINER, REPOSITORIES]),
  layer(['src/surfaces/**'], [CONTAINER, REPOSITORIES, ['**/db/database.js', 'Routes reach the database through services.']]),
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
    [SURFACES, ['**/plugins/**', 'Infrastructure imports no HTTP plugin.']],
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
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['test/**', 'bench/**', 'scripts/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-non-null-assertion': 'off' },
  },
);
