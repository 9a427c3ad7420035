// Covers the linter's architecture rules (eslint.config.js) by planting each violation they exist to catch in a file of the folder it belongs to, linted in memory, and seeing the rule fail with its message, for static imports and for import() of a literal path alike; the allowed neighbour of each passes.
import path from 'node:path';
import { ESLint } from 'eslint';
import t from 'tap';

const root = path.resolve(import.meta.dirname, '../..');
const eslint = new ESLint({ cwd: root });

/** The architecture rules' messages for `code` as if it were the file `file` (nothing is written). */
async function problems(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages
    .filter((m) =>
      ['no-restricted-imports', 'pier/no-restricted-dynamic-imports', 'no-restricted-properties'].includes(
        m.ruleId ?? '',
      ),
    )
    .map((m) => m.message);
}

/**
 * The way up from api/resources/planted/ and api/ui/components/ to the repository's root, built
 * rather than written: written out, it would read as a path of this test file's leaving the
 * repository (test/self-contained.test.ts).
 */
const fromPlanted = '../'.repeat(3);

/** Each planted violation: where, what, and the words of the message that names the rule. */
const planted: { what: string; file: string; code: string; says: string }[] = [
  {
    what: 'api/ importing a module behind the runtime door',
    file: 'api/resources/planted/service.ts',
    code: `import { Supervisor } from '${fromPlanted}runtime/supervisor/supervisor.js';\nexport type S = Supervisor;\n`,
    says: 'One door into the runtime: import runtime/index.ts',
  },
  {
    what: 'cli/ importing a module behind the runtime door',
    file: 'cli/commands/planted.ts',
    code: "import { Dispatcher } from '../../runtime/dispatch/dispatcher.js';\nexport type D = Dispatcher;\n",
    says: 'One door into the runtime: import runtime/index.ts',
  },
  {
    what: 'cli/ loading a module behind the runtime door with import()',
    file: 'cli/commands/planted.ts',
    code: "export const load = () => import('../../runtime/heap-start.js');\n",
    says: 'One door into the runtime: import runtime/index.ts',
  },
  {
    what: 'api/ loading a module behind the runtime door with import() of a template literal',
    file: 'api/resources/planted/service.ts',
    code: `export const load = () => import(\`${fromPlanted}runtime/supervisor/supervisor.js\`);\n`,
    says: 'One door into the runtime: import runtime/index.ts',
  },
  {
    what: 'actors/ loading the runtime with import()',
    file: 'actors/file-writer/planted.ts',
    code: "export const load = async () => (await import('../../runtime/index.js')).startRuntime;\n",
    says: 'actors/ speak to the core over their channel',
  },
  {
    what: 'pki/ opening the ORM',
    file: 'pki/certificates/planted.ts',
    code: "import type { EntityManager } from '@mikro-orm/postgresql';\nexport type E = EntityManager;\n",
    says: 'pki/ knows no database',
  },
  {
    what: 'pki/ running SQL on a connection it was handed',
    file: 'pki/certificates/planted.ts',
    code: "export const rows = (em: { getConnection(): { execute(s: string): unknown } }) =>\n  em.getConnection().execute('select der from certificate');\n",
    says: 'One way to the database',
  },
  {
    what: 'edi/ reaching up into the protocol it is a library of',
    file: 'edi/json/planted.ts',
    code: "import { EdiRecord } from '../../protocol/core-protocol.js';\nexport const record = EdiRecord;\n",
    says: 'edi/ is a library below every layer',
  },
  {
    what: 'limits/ reading a value of the layer it tunes',
    file: 'limits/planted.ts',
    code: "import { pluginTypes } from '../actors/shared/definition.js';\nexport const types = pluginTypes;\n",
    says: 'limits/ is the one table of limits',
  },
  {
    what: 'runtime/ running an actor’s sending code on the main thread',
    file: 'runtime/alerts/planted.ts',
    code: "import { sendNotification } from '../../actors/notification-webhook/send.js';\nexport const send = sendNotification;\n",
    says: "An actor's work runs in its own thread",
  },
  {
    what: 'protocol/ importing the payload stores',
    file: 'protocol/planted.ts',
    code: "import { InlineContent } from '../storage/payloads/inline.js';\nexport const c = InlineContent;\n",
    says: 'protocol/ is what crosses a thread and owns its shapes',
  },
  {
    what: 'storage/ importing the channel protocol beyond its payload shapes',
    file: 'storage/payloads/planted.ts',
    code: "import { CoreRequest } from '../../protocol/core-protocol.js';\nexport const r = CoreRequest;\n",
    says: 'storage/ may not import the channel protocol',
  },
  {
    what: 'runtime/ reaching past the entities to the connection',
    file: 'runtime/supervisor/planted.ts',
    code: "import type { EntityManager } from '@mikro-orm/postgresql';\nexport const one = (em: EntityManager) => em.getConnection().execute('select 1');\n",
    says: 'One way to the database',
  },
  {
    what: 'runtime/ opening a raw pg client',
    file: 'runtime/cluster/planted.ts',
    code: "import pg from 'pg';\nexport const client = new pg.Client();\n",
    says: 'One way to the database',
  },
  {
    what: 'flow/ reaching past the entities to the connection',
    file: 'flow/alerts/planted.ts',
    code: "import type { EntityManager } from '@mikro-orm/postgresql';\nexport const one = (em: EntityManager) => em.getConnection().execute('select 1');\n",
    says: 'One way to the database',
  },
  {
    what: 'a web UI component importing a page',
    file: 'api/ui/components/planted.ts',
    code: "import { registerPages } from '../pages/index.js';\nexport const r = registerPages;\n",
    says: 'api/ui/components/ are what pages are built from and import no page',
  },
  {
    what: 'a web UI component still behind the runtime door',
    file: 'api/ui/components/planted.ts',
    code: `import { Supervisor } from '${fromPlanted}runtime/supervisor/supervisor.js';\nexport type S = Supervisor;\n`,
    says: 'One door into the runtime: import runtime/index.ts',
  },
];

for (const { what, file, code, says } of planted) {
  t.test(`refused: ${what}`, async (t) => {
    const found = await problems(file, code);
    t.ok(
      found.some((m) => m.includes(says)),
      `${file} fails with "${says}…" (got: ${found.join(' | ') || 'nothing'})`,
    );
  });
}

/** The neighbours each rule leaves open: the code that ships does exactly these. */
const allowed: { what: string; file: string; code: string }[] = [
  {
    what: 'api/ through the runtime door',
    file: 'api/resources/planted/service.ts',
    code: `import { startRuntime } from '${fromPlanted}runtime/index.js';\nexport const s = startRuntime;\n`,
  },
  {
    what: 'the CLI loading the runtime through its door with import(), and a path import() computes',
    file: 'cli/commands/planted.ts',
    code: "export const load = () => import('../../runtime/index.js');\nexport const any = (p: string) => import(p);\n",
  },
  {
    what: 'the CLI’s light leaves of the runtime',
    file: 'cli/planted.ts',
    code: "import { serviceVersion } from '../runtime/version.js';\nimport { SecretBox } from '../runtime/secrets/secret-box.js';\nexport const v = [serviceVersion, SecretBox];\n",
  },
  {
    what: 'runtime/ reading the actor registry and a config schema',
    file: 'runtime/alerts/planted.ts',
    code: "import { pluginTypeDefinitions } from '../../actors/index.js';\nimport type { NotificationWebhookSettings } from '../../actors/notification-webhook/config.js';\nexport type W = NotificationWebhookSettings;\nexport const d = pluginTypeDefinitions;\n",
  },
  {
    what: 'storage/ taking the payload shapes from the protocol',
    file: 'storage/payloads/planted.ts',
    code: "import { StoreSelection } from '../../protocol/payload-wire.js';\nexport const s = StoreSelection;\n",
  },
  {
    what: 'a web UI page importing the components',
    file: 'api/ui/pages/planted.ts',
    code: "import { openPage } from '../components/index.js';\nexport const o = openPage;\n",
  },
  {
    what: 'storage/ reading the table of limits',
    file: 'storage/payloads/planted.ts',
    code: "import { limits } from '../../limits/limits.js';\nexport const slice = limits.streamSliceBytes;\n",
  },
  {
    what: 'storage/ running SQL past the entity API',
    file: 'storage/queries/planted.ts',
    code: "import type { EntityManager } from '@mikro-orm/postgresql';\nexport const one = (em: EntityManager) => em.getConnection().execute('select 1');\n",
  },
];

for (const { what, file, code } of allowed) {
  t.test(`allowed: ${what}`, async (t) => {
    t.same(await problems(file, code), [], `${file} passes`);
  });
}
