// @ts-check
import { dirname, relative, resolve, sep } from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The layer order (the README's "Layout"): a file imports from its own layer and from the
 * layers before it, never from one after it. A group in brackets stands side by side: each of
 * its layers imports what comes before the group, and not the others of the group. The
 * command line and dev tooling (src/cli) come after the node they start. The explorer comes
 * after them, so no layer of the product imports it, and imports no other layer (APART). The dev folders come last: the benchmarks and the tests import the product
 * and their shared helpers (devkit), the tests also the benchmarks they test.
 */
/** @type {ReadonlyArray<string | readonly string[]>} */
const LAYERS = [
  'src/errors',
  'src/threads',
  'src/crypto',
  'src/config',
  'src/keystore',
  ['src/pki', 'src/licences'],
  'src/ride',
  'src/protocol',
  'src/state',
  'src/chain',
  'src/replication',
  'src/privacy',
  'src/contracts',
  'src/consensus',
  'src/anchoring',
  'src/network',
  'src/api',
  'src/node',
  'src/cli',
  'src/explorer',
  'devkit',
  'bench',
  'test',
];

/** Layers that import no other layer: the explorer talks to the node over its REST API only. */
const APART = ['src/explorer'];

/** @typedef {{ readonly folder: string, readonly rank: number }} Layer a folder and its place in the order */

/** @type {readonly Layer[]} */
const PLACES = LAYERS.flatMap((entry, rank) => (typeof entry === 'string' ? [entry] : entry).map((folder) => ({ folder, rank })));

/** @param {string} path relative to the root, e.g. `src/chain/utx.ts` */
const layerOf = (path) => PLACES.find((layer) => path.startsWith(`${layer.folder}/`));

/** @param {string} path */
const rootRelative = (path) =>
  relative(import.meta.dirname, path)
    .split(sep)
    .join('/');

/**
 * Why a file of `from` may not import one of `to`; undefined when it may.
 * @param {Layer} from
 * @param {Layer} to
 */
function wrongDirection(from, to) {
  if (from.folder === to.folder) return undefined;
  if (APART.includes(from.folder)) return `${from.folder} stands apart: it imports no other layer`;
  if (from.rank === to.rank) return `${from.folder} and ${to.folder} stand side by side: neither imports the other`;
  if (from.rank < to.rank) return `${to.folder} comes after ${from.folder} in the layer order: an import runs down the order, never back up`;
  return undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
const layerOrder = {
  meta: {
    type: 'problem',
    docs: { description: 'A layer imports only from itself and the layers before it (LAYERS in eslint.config.js)' },
    schema: [],
    messages: {
      wrongDirection: '{{file}} may not import {{target}}: {{why}} (LAYERS in eslint.config.js).',
      noLayer: '{{folder}} is in no layer: give it its place in LAYERS (eslint.config.js).',
    },
  },
  create(context) {
    const file = rootRelative(context.filename);
    const from = layerOf(file);
    /** @param {import('estree').Node | null | undefined} source */
    const check = (source) => {
      if (source?.type !== 'Literal' || typeof source.value !== 'string' || !source.value.startsWith('.')) return;
      const target = rootRelative(resolve(dirname(context.filename), source.value));
      if (target.startsWith('../')) return;
      const to = layerOf(target);
      if (from === undefined || to === undefined) {
        context.report({ node: source, messageId: 'noLayer', data: { folder: dirname(from === undefined ? file : target) } });
        return;
      }
      const why = wrongDirection(from, to);
      if (why !== undefined) context.report({ node: source, messageId: 'wrongDirection', data: { file, target, why } });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
      /** `import('…').Name` in a type. @param {{ source: import('estree').Literal }} node */
      TSImportType: (node) => check(node.source),
    };
  },
};

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'scratch/', 'data/', 'test/fixtures/contracts/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: { allowDefaultProject: ['eslint.config.js', 'bin/weft.js'] }, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { weft: { rules: { 'layer-order': layerOrder } } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true, allowBoolean: true, allow: [{ from: 'lib', name: 'BigInt' }] }],
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['describe', 'it', 'test', 'suite', 'before', 'after', 'beforeEach', 'afterEach'] },
          ],
        },
      ],
      eqeqeq: ['error', 'always'],
      'weft/layer-order': 'error',
    },
  },
  {
    // One check tells an internal failure from a WE error: Weft's own error classes extend InternalError or WeError
    // (src/types declares the platform's).
    files: ['src/**/*.ts'],
    ignores: ['src/errors/**', 'src/explorer/**', 'src/types/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector:
            ':matches(ClassDeclaration, ClassExpression)[superClass.name=/^(Error|EvalError|RangeError|ReferenceError|SyntaxError|TypeError|URIError)$/]',
          message: 'An error class extends InternalError (src/errors/internal.ts), or WeError (src/errors/catalogue.ts) when it is what a client is answered.',
        },
      ],
    },
  },
  {
    // Tests, benchmarks and their shared helpers drive the official (untyped, CommonJS) client libraries.
    files: ['devkit/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
);
