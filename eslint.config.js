// Lint rules: the recommended TypeScript set, the few that catch real mistakes here, and the
// architecture's one-way dependencies between top-level folders (docs/architecture.md).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const order =
  'Dependencies point one way: cli → api → runtime → actors → flow → protocol → pki, storage below';
/** An import pattern of a folder, with the message saying why it may not be imported from here. */
const folder = (name, why) => ({ group: [`**/${name}/**`, `**/${name}/*`], message: `${why}. ${order}.` });

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
  ],
  storage: [
    folder('api', 'storage/ may not import the API'),
    folder('cli', 'storage/ may not import the CLI'),
    folder('runtime', 'storage/ may not import the runtime'),
    folder('actors', 'storage/ may not import actors'),
    folder('protocol', 'storage/ may not import the channel protocol'),
    folder('flow', 'storage/ may not import the message flow commands'),
  ],
  protocol: [
    folder('api', 'protocol/ is spoken by runtime and actors and imports neither'),
    folder('cli', 'protocol/ is spoken by runtime and actors and imports neither'),
    folder('runtime', 'protocol/ is spoken by runtime and actors and imports neither'),
    folder('actors', 'protocol/ is spoken by runtime and actors and imports neither'),
    folder('flow', 'protocol/ is spoken by runtime and actors and imports neither'),
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
  runtime: [folder('api', 'runtime/ runs without the API'), folder('cli', 'runtime/ runs without the CLI')],
  api: [
    folder('cli', 'the CLI sits on top of the API, not below it'),
    {
      group: ['**/storage/sql', '**/storage/sql.js', '**/flow/tx', '**/flow/tx.js'],
      message: `api/ runs no SQL of its own: add a named function to storage/repositories/. ${order}.`,
    },
  ],
};

const noSqlHere = 'api/ runs no SQL of its own: add a named function to storage/repositories/ and call it';
/** What the API may not do with the ORM: reach past entities to the connection, raw SQL or the query builder. */
const apiSql = {
  files: ['api/**/*.ts'],
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
/** Raw fragments of the ORM, in the import rule of api/ (one rule per file set, so merged here). */
const apiOrmPaths = ['@mikro-orm/core', '@mikro-orm/postgresql', '@mikro-orm/knex'].map((name) => ({
  name,
  importNames: ['raw', 'sql', 'RawQueryFragment'],
  message: noSqlHere,
}));

export default tseslint.config(
  { ignores: ['node_modules/**', 'data/**', 'dist/**', '.test-output/**', '.tap/**', '.test-pg/**'] },
  js.configs.recommended,
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
      eqeqeq: ['error', 'smart'],
    },
  },
  ...Object.entries(boundaries).map(([name, patterns]) => ({
    files: [`${name}/**/*.ts`, `${name}/**/*.mjs`],
    ignores: ['**/*.test.ts', '**/fixtures/**'],
    rules: {
      'no-restricted-imports': ['error', name === 'api' ? { patterns, paths: apiOrmPaths } : { patterns }],
    },
  })),
  apiSql,
);
