import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { upwardImport } from './scripts/layers.ts';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeBuiltins = [
  'assert',
  'buffer',
  'child_process',
  'cluster',
  'crypto',
  'dgram',
  'dns',
  'events',
  'fs',
  'fs/promises',
  'http',
  'http2',
  'https',
  'net',
  'os',
  'path',
  'perf_hooks',
  'process',
  'readline',
  'stream',
  'tls',
  'url',
  'util',
  'v8',
  'vm',
  'worker_threads',
  'zlib',
];

// ---- Floors, bottom to top: sdk → lib → features → integrations → activities / api → worker → start
// (scripts/layers.ts, also checked by scripts/check-cycles.ts). `layers/no-upward-import` refuses an
// import from a floor to a higher one; the rules below add what a floor may not use beside that.
// Type-only imports (`import type`) are allowed where noted, since they vanish at compile time.
const layer = (regex, message, allowTypeImports = false) => ({ regex, message, allowTypeImports });

const ROOT = dirname(fileURLToPath(import.meta.url));
const layersPlugin = {
  rules: {
    'no-upward-import': {
      meta: { type: 'problem', schema: [] },
      create(context) {
        const from = relative(ROOT, context.filename);
        const check = (node) => {
          const spec = node.source?.value;
          if (typeof spec !== 'string' || !spec.startsWith('.')) return;
          const why = upwardImport(from, relative(ROOT, resolve(dirname(context.filename), spec)));
          if (why) context.report({ node: node.source, message: why });
        };
        return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check };
      },
    },
  },
};

// lib/ is infrastructure: no feature, entry point or workflow (the floors), and no tool or test.
const libPatterns = [
  layer('^(\\.\\./)+(cli|bench|test)/', 'lib/ is infrastructure: it imports no tool or test. Inject what it needs (see lib/otel/env-router.ts).'),
];

// features/ hold the domain: no entry points, no HTTP handlers, no activities; workflow types only.
const featurePatterns = [
  layer('^(\\.\\./)+(cli|bench)/', 'features/ use no tool: pass what they need in.'),
  layer(
    '^(\\.\\./)+workflows/(?!contracts\\.js$)',
    'features/ may use the pure Temporal contracts (workflows/contracts.ts) and workflow types only (import type).',
    true,
  ),
];

// Database and credential modules fire no alerts and no webhooks: their callers (activities/, api/) do.
const storePatterns = [
  ...featurePatterns,
  layer('^(\\.\\./)+(features/)?alerts/', 'Database and credential modules raise no alerts: return the outcome and let the activity or handler raise it.'),
  layer(
    '(^|/)webhooks/(emit|deliveries|index)\\.js$',
    'Database and credential modules emit no webhooks: return the outcome and let the activity or handler emit it.',
  ),
  layer('^\\./(emit|deliveries|notify|hooks|index)\\.js$', 'Database and credential modules raise no alerts and emit no webhooks.'),
];
const storeModules = [
  'features/*/store.ts',
  'features/*/sessions.ts',
  'features/actions/runs.ts',
  'features/alerts/store.ts',
  'features/dashboard/runs.ts',
  'features/records/read.ts',
  'features/syncs/state.ts',
  'features/webhooks/{deliveries,events,settings}.ts',
  'features/connections/{store,credentials,service,oauth,refresh,target,connect-sessions,oauth-sessions,tags}.ts',
];

// Workflow code must be deterministic (Temporal replays it): no Node APIs, no I/O, and nothing of
// ours outside workflows/ but the pure contracts (workflows/contracts* may also live one folder up).
// Sibling workflow files are fine: each is under this same rule. `import type` of anything is fine
// (e.g. the proxyActivities<typeof activities> types).
const workflowPaths = [...nodeBuiltins, ...nodeBuiltins.map((m) => `node:${m}`), 'pg', 'undici'].map((name) => ({
  name,
  message: 'Workflows are replayed deterministically: do I/O in activities/.',
}));
const workflowImports = (allowedOutside = []) => ({
  paths: workflowPaths,
  patterns: [
    layer(
      `(^|/)\\.\\./(?!(contracts${allowedOutside.map((a) => `|${a}`).join('')})(\\.js$|/))`,
      'Workflows import only workflows/*, their pure contracts and @temporalio/*: activities, features, lib and integrations are I/O (`import type` only).',
      true,
    ),
  ],
});

const pluginWorkflowPattern = layer(
  '^(?!\\./contracts\\.js$|\\.\\./status\\.js$)\\.',
  "A plugin's workflow imports only its ./contracts.js, ../status.js and @temporalio/* (`import type` of anything).",
  true,
);

// api/, activities/, worker/ and start/ issue no SQL: they call the features' store functions (lib/db/pool's Db and
// Queryable types are fine to pass along).
const noSql = {
  'no-restricted-imports': ['error', { paths: [{ name: 'pg', message: 'SQL lives in features/<feature>/ stores (and lib/db).' }] }],
  'no-restricted-syntax': [
    'error',
    {
      selector: "CallExpression[callee.type='MemberExpression'][callee.property.name='query']:not([callee.object.property.name='req'])",
      message: 'No SQL here: call (or add) a function in features/<feature>/store.ts.',
    },
  ],
};

// api/ parses, calls a use case and maps its result: sync state and schedules are reached through the sync commands
// (features/syncs/commands.ts), connection writes through the connection commands, single rows through the resolver.
const useCasesOnly = [
  {
    regex: 'features/syncs/(schedules|state)\\.js$',
    allowTypeImports: true,
    message: 'Sync use cases go through features/syncs/commands.ts (deps.syncs).',
  },
  {
    regex: 'features/connections/store\\.js$',
    importNames: ['getConnection', 'patchConnection', 'deleteConnection', 'setEndUserOfAllConnections'],
    message: 'Connection use cases go through features/connections/commands.ts (deps.connections); one row through features/connections/resolve.ts.',
  },
  {
    regex: 'features/integrations/store\\.js$',
    importNames: ['getIntegration'],
    message: 'Read one integration through features/connections/resolve.ts (requireIntegration) or deps.lookups.',
  },
];

export default tseslint.config(
  { ignores: ['node_modules/**', '.switchyard/**', 'dist/**', 'bench/out/**', 'test-output/**', 'frontend/dist/**', '**/*.generated.*', 'test/fixtures/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    plugins: { layers: layersPlugin },
    rules: { 'layers/no-upward-import': 'error' },
  },
  {
    languageOptions: {
      globals: {
        console: 'readonly',
        process: 'readonly',
        fetch: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        Buffer: 'readonly',
        crypto: 'readonly',
        performance: 'readonly',
        structuredClone: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        Headers: 'readonly',
        Response: 'readonly',
        Request: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        window: 'readonly',
        document: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-empty': ['error', { allowEmptyCatch: true }],
    },
  },
  {
    files: ['lib/**/*.{ts,tsx}'],
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: libPatterns }] },
  },
  {
    files: ['features/**/*.{ts,tsx}'],
    ignores: ['**/*.test.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: featurePatterns }] },
  },
  {
    files: storeModules,
    rules: { 'no-restricted-imports': ['error', { patterns: storePatterns }] },
  },
  {
    files: ['api/**/*.{ts,tsx}', 'activities/**/*.ts', 'worker/**/*.ts', 'start/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: noSql,
  },
  {
    files: ['api/**/*.{ts,tsx}'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'pg', message: 'SQL lives in features/<feature>/ stores (and lib/db).' }], patterns: useCasesOnly }],
    },
  },
  {
    // The code evaluated inside an isolate (plain V8): no Node modules, packages or globals.
    files: ['lib/sandbox/isolate/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [...libPatterns, { regex: '^(?!\\.{1,2}/)', message: 'This runs in a bare isolate: import only its own modules.' }] },
      ],
      'no-restricted-globals': [
        'error',
        ...[
          'process',
          'Buffer',
          'fetch',
          'setTimeout',
          'clearTimeout',
          'setInterval',
          'clearInterval',
          'console',
          'window',
          'document',
          'performance',
          'crypto',
        ].map((name) => ({ name, message: 'Not a global this code can rely on inside the isolate.' })),
      ],
    },
  },
  {
    files: ['workflows/**/*.ts'],
    // Pure modules outside workflows/ that the bundle may load: the plugins' workflow list and
    // contracts (deterministic code under the plugin-workflow rule below) and the search-attribute keys.
    rules: {
      'no-restricted-imports': [
        'error',
        workflowImports(['integrations/workflows', 'integrations/workflow-contracts', 'lib/temporal/search-attributes', 'lib/otel/trace-headers']),
      ],
    },
  },
  {
    // Provider plugins' own workflows are workflow code too: they may import their plugin's pure
    // contracts (./contracts.js) and status reducer (../status.js), nothing else of ours.
    files: ['integrations/*/workflows/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: workflowPaths, patterns: [pluginWorkflowPattern] }] },
  },
  {
    files: ['integrations/workflows.ts', 'integrations/workflow-contracts.ts'],
    rules: { 'no-restricted-imports': ['error', { paths: workflowPaths, patterns: [layer('^\\.\\./', 'Only provider workflows and their contracts here.')] }] },
  },
  {
    // Pre-built scripts run in the sandbox: they see the script SDK and their own folder only.
    files: ['integrations/*/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [layer('^\\.\\./(?!\\.\\./sdk/)', 'A pre-built script imports the script SDK (sdk/) and its own folder only.')] },
      ],
    },
  },
);
