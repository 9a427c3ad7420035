/** The product name and version used in User-Agent and Server headers (docs/api/settings.md). */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// package.json is one folder above this file in the sources (runtime/) and two in the compiled
// build (dist/runtime/): the nearer one that exists.
const here = path.dirname(fileURLToPath(import.meta.url));
const packageJson = [path.join(here, '..', 'package.json'), path.join(here, '..', '..', 'package.json')].find(
  (candidate) => existsSync(candidate),
)!;
const pkg = JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string };

export const serviceName = 'pier';
export const serviceVersion = pkg.version;

export function identification(hideVersion: boolean): string {
  return hideVersion ? serviceName : `${serviceName}/${serviceVersion}`;
}
