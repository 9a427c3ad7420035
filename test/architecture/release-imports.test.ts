// Covers what the release build (scripts/build.ts, tsconfig.build.json) ships importing only Node's own modules, the package's dependencies and its own files: every module the build compiles into dist/, imported ones included, and the JavaScript it copies beside them; never a devDependency, which an installed release does not have. A test-support generator that imports fast-check (edi/json/fixtures/generate.ts) is named when planted in the list.
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import t from 'tap';
import ts from 'typescript';
import { checkoutRoot as root } from '../helpers/checkout.js';

const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const shipped = new Set(Object.keys(manifest.dependencies));

/** The modules a file loads when it runs: type-only imports are erased (verbatimModuleSyntax). */
function runtimeSpecifiers(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly) {
      if (ts.isStringLiteral(node.moduleSpecifier)) out.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && !node.isTypeOnly && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) out.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node)) {
      const [first] = node.arguments;
      const loads =
        node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require');
      if (loads && first && ts.isStringLiteralLike(first)) out.push(first.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** The package a bare specifier names (`@scope/name/sub` → `@scope/name`); null for Node's and relative ones. */
function packageOf(specifier: string): string | null {
  if (specifier.startsWith('.') || specifier.startsWith('node:') || builtinModules.includes(specifier))
    return null;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** `file: package` for each package a file loads that a release does not install. */
function unshipped(files: readonly string[]): string[] {
  return files.flatMap((file) =>
    runtimeSpecifiers(file)
      .map(packageOf)
      .filter((name): name is string => name !== null && !shipped.has(name))
      .map((name) => `${path.relative(root, file)}: ${name}`),
  );
}

/** What tsc emits for the build: the included files and every file they import, as the program holds them. */
function builtModules(): string[] {
  const configFile = path.join(root, 'tsconfig.build.json');
  const config = ts.getParsedCommandLineOfConfigFile(
    configFile,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  )!;
  const program = ts.createProgram(config.fileNames, config.options);
  return program
    .getSourceFiles()
    .map((f) => f.fileName)
    .filter((f) => !f.includes('/node_modules/') && !f.endsWith('.d.ts'));
}

t.test('every module the build compiles imports only dependencies', async (t) => {
  const modules = builtModules();
  t.ok(modules.length > 300, `the build's ${modules.length} modules are read`);
  t.ok(
    modules.some((f) => f.endsWith('cli/main.ts')),
    'the CLI is among them',
  );
  t.notOk(
    modules.some((f) => f.includes('/fixtures/') || f.endsWith('.test.ts')),
    'no test or fixture is compiled into the release',
  );
  t.same(unshipped(modules), [], 'no module loads a devDependency');
});

t.test('the JavaScript the build copies beside them imports only dependencies', async (t) => {
  // scripts/build.ts copies it as it is: the receive pool's task file.
  const copied = [path.join(root, 'actors/as2-receiver/open-worker-entry.cjs')];
  t.same(unshipped(copied), []);
});

t.test('a generator of the property tests, planted in the list, is named', async (t) => {
  const generator = path.join(root, 'edi/json/fixtures/generate.ts');
  t.same(unshipped([generator]), ['edi/json/fixtures/generate.ts: fast-check']);
  t.ok(manifest.devDependencies['fast-check'], 'fast-check is a devDependency');
});
