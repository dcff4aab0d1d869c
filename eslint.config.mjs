// `npm run lint`: type-aware checks everywhere, and the layering rules of the house as import bans.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import tseslint from 'typescript-eslint';

/** The parts of src/ (folders and top-level modules), to name the ones a layer may not reach at any folder depth. */
const PARTS = readdirSync(path.join(import.meta.dirname, 'src')).map((entry) => entry.replace(/\.ts$/, ''));
const into = (parts) => `^(\\.\\./)+(${parts.join('|')})(/|$)`;
const allBut = (...allowed) => into(PARTS.filter((part) => !allowed.includes(part)));

/** Bans every package and Node built-in (`node:fs`, `fs`, `child_process`…) but the ones named. */
const onlyPackages = (...allowed) => `^(?!(${allowed.join('|')})$)[^.]`;

const ban = (regex, message, extra = {}) => ({ regex, message, ...extra });

/** Every rule of a layer in one place: a later config for the same files would replace these rules, not add to them. */
const layer = (files, why, ...patterns) => ({
  files,
  rules: {
    '@typescript-eslint/no-restricted-imports': ['error', { patterns }],
    // require() and import() would slip past the import bans.
    'no-restricted-syntax': [
      'error',
      { selector: "CallExpression[callee.name='require']", message: why },
      { selector: 'ImportExpression', message: why },
    ],
  },
});

/** `require('x')`, `import('x')` and `typeof import('x')` of a banned path, which the import bans do not see. */
const onUse = ({ regex, message }) => {
  const path = `/${regex.replaceAll('/', '\\/')}/`;
  return [
    { selector: `CallExpression[callee.name='require'][arguments.0.value=${path}]`, message },
    { selector: `ImportExpression[source.value=${path}]`, message },
    { selector: `TSImportType[source.value=${path}]`, message },
  ];
};

/** Like `layer`, for a folder that may load modules on use: require() and import() are banned only where they reach a banned part. */
const reach = (files, ...patterns) => ({
  files,
  rules: {
    '@typescript-eslint/no-restricted-imports': ['error', { patterns }],
    'no-restricted-syntax': ['error', ...patterns.flatMap(onUse)],
  },
});

/** What a command module may load when it is registered: the rest waits for its action. */
const LIGHT_FOR_COMMANDS = ['domain/errors', 'domain/vocabulary', 'graph/templates', 'mcp/operator-token', 'node-kinds/catalogue'];
const HEAVY_FOR_COMMANDS = [
  'client',
  'config',
  'contract',
  'store',
  'temporal',
  'workflows',
  'agents',
  'graph',
  'node-kinds',
  'git',
  'domain',
  'mcp',
];
const LOAD_ON_RUN =
  'A command loads what its action works with when it runs, with `require(…) as typeof import(…)` inside the action (types with `import type`), so `canopy --version`, `--help` and every other command do not load it.';

const NO_ACTIVITIES =
  'Only the worker (src/worker.ts, src/daemon.ts) loads activities/; put what this needs from there in a neutral room (process/, git/, contract/ or a top-level module) and import it from both sides.';

export default defineConfig(
  { ignores: ['dist/', 'node_modules/', '.tools/'] },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // node:test's runner awaits the promises its test and suite functions return.
      '@typescript-eslint/no-floating-promises': [
        'error',
        { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite'] }] },
      ],
      '@typescript-eslint/no-misused-promises': 'error',
      // Destructuring a property away to drop it from the rest is how the code omits fields.
      '@typescript-eslint/no-unused-vars': ['error', { ignoreRestSiblings: true }],
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', __dirname: 'readonly', process: 'readonly', console: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // Tests read the JSON that CLI and MCP processes print as `any`, and an assertion on it follows.
    files: ['test/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  { files: ['eslint.config.mjs'], languageOptions: { sourceType: 'module' } },

  // DESIGN.md, "Rules of the house".
  layer(
    ['src/workflows/**'],
    'Workflows load only @temporalio/workflow, graph/, contract/, domain types and workflows/.',
    ban(
      onlyPackages('@temporalio/workflow'),
      'Workflows run in the deterministic sandbox: no Node built-in and no package but @temporalio/workflow; do I/O in an activity.',
    ),
    ban('^(\\.\\./)+domain(/[^/]+)?$', 'Import domain types with `import type`: their code stays out of the bundle.', {
      allowTypeImports: true,
    }),
    ban(
      allBut('graph', 'node-kinds', 'workflows', 'domain', 'contract'),
      'Workflows import only graph/, node-kinds/, contract/ and domain types outside workflows/; they call activities through proxyActivities typed by contract/.',
    ),
  ),
  // A workflow reads top-down in levels, each function short enough to see whole.
  { files: ['src/workflows/**'], rules: { 'max-lines-per-function': ['error', { max: 80 }] } },
  layer(
    ['src/contract/**'],
    'contract/ is shared by the workflow bundle and every other side: types and constants only.',
    ban(
      onlyPackages(),
      'contract/ holds types, constants and message definitions, and loads no package (a client reading loops must not load the workflow SDK): SDK types with `import type`.',
      { allowTypeImports: true },
    ),
    ban('^(\\.\\./)+(domain|graph|node-kinds)(/[^/]+)?$', 'contract/ refers to domain, graph and node-kind types with `import type`.', {
      allowTypeImports: true,
    }),
    ban(allBut('contract', 'domain', 'graph', 'node-kinds'), 'contract/ imports only domain, graph and node-kind types.'),
  ),
  layer(
    ['src/graph/**'],
    'graph/ is pure: the workflow bundle uses it.',
    ban(
      onlyPackages('zod', 're2js'),
      'graph/ is pure (the workflow bundle uses it): no Node built-in, no package but zod and the pure regex engine re2js (no kysely, pg, simple-git…).',
    ),
    ban(
      allBut('graph', 'domain', 'node-kinds'),
      'graph/ is pure: it imports only domain/, node-kinds/ and itself (no store, activities, temporal, workflows).',
    ),
  ),
  layer(
    ['src/node-kinds/**'],
    "node-kinds/ is pure like graph/: validation, the workflow bundle, the CLI and MCP read each kind's rules.",
    ban(onlyPackages('zod', 're2js'), 'node-kinds/ is pure: no Node built-in, no package but zod and re2js.'),
    ban(allBut('node-kinds', 'graph', 'domain'), "node-kinds/ builds on domain/ and graph/'s primitives (templates, patterns) alone."),
  ),
  layer(
    ['src/domain/**'],
    'domain/ loads only zod and itself.',
    ban(onlyPackages('zod'), 'domain/ knows nothing of storage, Temporal or processes: no Node built-in, no package but zod.'),
    ban(
      `^(\\.\\./)+(?!node-kinds/catalogue$)(${PARTS.filter((part) => part !== 'domain').join('|')})(/|$)`,
      "domain/ imports only itself and the kinds' names (node-kinds/catalogue, which loads nothing).",
    ),
  ),
  reach(
    ['src/client/**'],
    ban(into(['cli', 'mcp', 'daemon']), 'client/ is the service layer under the CLI, MCP and daemon; it never imports them.'),
    ban(into(['activities']), `client/ never imports activities/. ${NO_ACTIVITIES}`),
    ban(
      into(['workflows']),
      'client/ knows the workflows through contract/ (their inputs, results, messages and LoopRunWorkflow), never their code.',
    ),
  ),
  reach(['src/mcp/**'], ban(into(['activities']), `mcp/ never imports activities/: it is a thin interface over client/. ${NO_ACTIVITIES}`)),
  reach(['src/cli/**'], ban(into(['activities']), `cli/ never imports activities/: it is thin over client/. ${NO_ACTIVITIES}`)),
  {
    // Every command is registered at start-up, so what its action works with is loaded only when it runs.
    files: ['src/cli/commands/**'],
    rules: {
      '@typescript-eslint/no-require-imports': 'off',
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            ban(into(['activities']), `cli/ never imports activities/: it is thin over client/. ${NO_ACTIVITIES}`),
            ban(`^(\\.\\./)+(?!(${LIGHT_FOR_COMMANDS.join('|')})$)(${HEAVY_FOR_COMMANDS.join('|')})(/|$)`, LOAD_ON_RUN, {
              allowTypeImports: true,
            }),
            ban(onlyPackages('commander', 'node:[a-z_/]+'), LOAD_ON_RUN, { allowTypeImports: true }),
          ],
        },
      ],
    },
  },
  reach(['src/temporal/**'], ban(into(['activities']), `temporal/ never imports activities/. ${NO_ACTIVITIES}`)),
  reach(
    ['src/activities/**'],
    ban(
      into(['workflows', 'temporal']),
      'activities/ never import workflows/ or temporal/: what they share with the workflows is in contract/, and the process and git utilities they need are in process/ and git/.',
    ),
  ),
  reach(
    ['src/process/**', 'src/git/**'],
    ban(
      into(['activities', 'workflows', 'client', 'cli', 'mcp', 'temporal']),
      'process/ and git/ are utilities the engine, the client and temporal/ all use: they import none of activities/, workflows/, client/, cli/, mcp/ or temporal/.',
    ),
  ),
);
