// Lint rules: the recommended TypeScript set, the few that catch real mistakes here, and the
// architecture's one-way dependencies between top-level folders (docs/architecture.md).
import js from '@eslint/js';
import { builtinRules } from 'eslint/use-at-your-own-risk';
import tseslint from 'typescript-eslint';

const order =
  'Dependencies point one way: cli → api → runtime → actors → flow → protocol → pki and edi (libraries), storage below (of protocol/ it takes only protocol/payload-wire.ts), limits/ (the table of limits) below them all';
/** An import pattern of a folder, with the message saying why it may not be imported from here. */
const folder = (name, why) => ({ group: [`**/${name}/**`, `**/${name}/*`], message: `${why}. ${order}.` });

/**
 * One door into the runtime: api/ and cli/ import runtime/index.ts, never a module behind it, so
 * the runtime's insides can change without touching them. Two light leaves are open as well, for
 * the CLI, which loads them before it knows whether it will start anything.
 */
const runtimeDoor = {
  regex: String.raw`^(\.\./)+runtime/(?!(index|version|secrets/secret-box)\.js$)`,
  message:
    'One door into the runtime: import runtime/index.ts (add the name there if it is missing); of the modules behind it, only runtime/version.ts and runtime/secrets/secret-box.ts are open',
};
/** A database driver or the ORM, where none may be known (pki/) or none is opened (protocol/). */
const database = (why) => ({ group: ['@mikro-orm/*', 'pg', 'pg-*'], message: `${why}. ${order}.` });

/** For each folder, the folders its code may not import (tests and fixtures may import anything). */
const boundaries = {
  pki: [
    folder('api', 'pki/ is a library below every layer'),
    folder('cli', 'pki/ is a library below every layer'),
    folder('runtime', 'pki/ is a library below every layer'),
    folder('actors', 'pki/ is a library below every layer'),
    folder('protocol', 'pki/ is a library below every layer'),
    folder('storage', 'pki/ is a library below every layer'),
    folder('flow', 'pki/ is a library below every layer'),
    folder('edi', 'pki/ is a library of its own: it needs no EDI'),
    database('pki/ knows no database: its callers read the rows and pass the certificates in'),
  ],
  edi: [
    folder('api', 'edi/ is a library below every layer'),
    folder('cli', 'edi/ is a library below every layer'),
    folder('runtime', 'edi/ is a library below every layer'),
    folder('actors', 'edi/ is a library below every layer'),
    folder('protocol', 'edi/ is a library below every layer'),
    folder('storage', 'edi/ is a library below every layer'),
    folder('flow', 'edi/ is a library below every layer'),
    folder('pki', 'edi/ is a library of its own: X12 and EDIFACT need no PKI'),
    database('edi/ knows no database: its callers read and store what it makes'),
  ],
  limits: ['api', 'cli', 'runtime', 'actors', 'flow', 'protocol', 'storage', 'pki', 'edi'].map((name) =>
    folder(name, 'limits/ is the one table of limits that every folder reads, so it imports none of them'),
  ),
  storage: [
    folder('api', 'storage/ may not import the API'),
    folder('cli', 'storage/ may not import the CLI'),
    folder('runtime', 'storage/ may not import the runtime'),
    folder('actors', 'storage/ may not import actors'),
    {
      regex: String.raw`^(\.\./)+protocol/(?!payload-wire\.js$)`,
      message: `storage/ may not import the channel protocol, only the payload shapes that cross it (protocol/payload-wire.ts). ${order}.`,
    },
    folder('flow', 'storage/ may not import the message flow commands'),
  ],
  protocol: [
    folder('api', 'protocol/ is spoken by runtime and actors and imports neither'),
    folder('cli', 'protocol/ is spoken by runtime and actors and imports neither'),
    folder('runtime', 'protocol/ is spoken by runtime and actors and imports neither'),
    folder('actors', 'protocol/ is spoken by runtime and actors and imports neither'),
    folder('flow', 'protocol/ is spoken by runtime and actors and imports neither'),
    folder(
      'storage',
      'protocol/ is what crosses a thread and owns its shapes: storage/ takes them from protocol/payload-wire.ts',
    ),
    database('protocol/ is data crossing a thread and runs no SQL'),
  ],
  flow: [
    folder('api', 'flow/ holds the state moves that the runtime and actors run'),
    folder('cli', 'flow/ holds the state moves that the runtime and actors run'),
    folder('runtime', 'flow/ runs in actor threads too, where the runtime is not'),
    folder('actors', 'flow/ holds the state moves that the runtime and actors run'),
    {
      group: ['@mikro-orm/*'],
      allowTypeImports: true,
      message: `flow/ runs on the driver (storage/sql.ts) in actor threads, where no ORM is opened. ${order}.`,
    },
  ],
  actors: [
    folder('api', 'actors/ never import the API'),
    folder('cli', 'actors/ never import the CLI'),
    folder('runtime', 'actors/ speak to the core over their channel (protocol/), never import runtime/'),
    {
      group: ['**/storage/*', '!**/storage/payloads', '@mikro-orm/*', 'pg'],
      message: `actors/ reach the database only through the flow's commands (flow/actor-commands.ts); of storage/ they use only storage/payloads/. ${order}.`,
    },
    {
      group: ['**/flow/**', '!**/flow/actor-commands.js'],
      message: `actors/ run the flow's commands through flow/actor-commands.ts alone. ${order}.`,
    },
  ],
  runtime: [
    folder('api', 'runtime/ runs without the API'),
    folder('cli', 'runtime/ runs without the CLI'),
    {
      // as2/cem: the certificate exchange's message format, pure (no I/O, no thread), with which
      // the runtime writes the requests and answers it hands to an AS2 sender to post.
      regex: String.raw`^(\.\./)+actors/(?!(index|shared/definition|shared/fields|[a-z0-9-]+/config|as2/cem/index)\.js$)`,
      message: `An actor's work runs in its own thread: runtime/ asks the running instance over its channel (Supervisor.ask, protocol/host-protocol.ts) and imports of actors/ only the registry (actors/index.ts), config schemas and definitions (and the CEM message format, actors/as2/cem/index.ts). ${order}.`,
    },
  ],
  cli: [runtimeDoor],
  api: [
    runtimeDoor,
    folder('cli', 'the CLI sits on top of the API, not below it'),
    {
      group: ['**/storage/sql', '**/storage/sql.js', '**/flow/tx', '**/flow/tx.js'],
      message: `api/ runs no SQL of its own: add a named function to storage/repositories/. ${order}.`,
    },
  ],
};
/**
 * The web UI's components are what pages are built from, so they sit below the pages: a component
 * importing a page would tie every page to that one. Later in the list than api/, so it replaces
 * api/'s rule for these files and repeats its patterns.
 */
boundaries['api/ui/components'] = [
  ...boundaries.api,
  {
    group: ['**/pages/**', '**/pages/*'],
    message:
      'api/ui/components/ are what pages are built from and import no page: move what both need into api/ui/components/',
  },
];

/**
 * no-restricted-imports reads static imports only, so an `import('…')` of a literal path crossed a
 * boundary unseen (the CLI loaded a module behind the runtime's door so). This rule takes the same
 * options and hands each such import to it as the namespace import it is, with the same messages.
 */
const restrictedImports = builtinRules.get('no-restricted-imports');
const dynamicImports = {
  meta: {
    ...restrictedImports.meta,
    docs: { description: 'no-restricted-imports for import() of a literal path' },
  },
  create(context) {
    const check = restrictedImports.create(context).ImportDeclaration;
    return {
      ImportExpression(node) {
        const { source } = node;
        const value =
          source.type === 'Literal' && typeof source.value === 'string'
            ? source.value
            : source.type === 'TemplateLiteral' && source.expressions.length === 0
              ? source.quasis[0].value.cooked
              : undefined;
        if (value === undefined) return;
        check({
          type: 'ImportDeclaration',
          importKind: 'value',
          source: { ...source, type: 'Literal', value },
          specifiers: [{ type: 'ImportNamespaceSpecifier', loc: node.loc, range: node.range }],
          loc: node.loc,
          range: node.range,
          parent: node.parent,
        });
      },
    };
  },
};
const pier = { rules: { 'no-restricted-dynamic-imports': dynamicImports } };

/**
 * One way to the database per kind of work: records through the ORM's entities, the message flow
 * through flow/commands/ on storage/sql.ts, and every other statement a named function in
 * storage/ (repositories/, queries/) whose comment says why it is not the entity API. Outside
 * storage/ no code reaches past the entities to the connection, the query builder or a raw client.
 */
const noSqlHere =
  'One way to the database: SQL of its own lives in storage/ (a named function in storage/repositories/ or storage/queries/, saying why it is not the entity API); call that';
const sqlOutsideStorage = {
  files: ['api', 'cli', 'runtime', 'actors', 'flow', 'protocol', 'pki', 'edi', 'limits'].flatMap((name) => [
    `${name}/**/*.ts`,
    `${name}/**/*.mjs`,
  ]),
  ignores: ['**/*.test.ts', '**/fixtures/**'],
  rules: {
    'no-restricted-properties': [
      'error',
      ...['getConnection', 'getKnex', 'createQueryBuilder', 'qb', 'execute'].map((property) => ({
        property,
        message: noSqlHere,
      })),
    ],
  },
};
/** Raw clients and raw fragments of the ORM, merged into each folder's import rule (one rule per file set). */
const rawDatabasePaths = [
  { name: 'pg', message: noSqlHere },
  ...['@mikro-orm/core', '@mikro-orm/postgresql', '@mikro-orm/knex'].map((name) => ({
    name,
    importNames: ['raw', 'sql', 'RawQueryFragment'],
    message: noSqlHere,
  })),
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'dist/**', '.test-output/**', '.tap/**', '.test-pg/**'] },
  js.configs.recommended,
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  ...tseslint.configs.recommended,
  {
    // CommonJS only where a library must require() the file (actors/as2-receiver/open-worker-entry.cjs).
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
      eqeqeq: ['error', 'smart'],
    },
  },
  { plugins: { pier } },
  ...Object.entries(boundaries).map(([name, patterns]) => {
    const options = name === 'storage' ? { patterns } : { patterns, paths: rawDatabasePaths };
    return {
      files: [`${name}/**/*.ts`, `${name}/**/*.mjs`],
      ignores: ['**/*.test.ts', '**/fixtures/**'],
      rules: {
        'no-restricted-imports': ['error', options],
        'pier/no-restricted-dynamic-imports': ['error', options],
      },
    };
  }),
  sqlOutsideStorage,
);
