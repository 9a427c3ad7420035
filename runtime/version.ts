/** The product name and version used in User-Agent and Server headers (spec 2.11). */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
// The sources sit one folder below package.json, the compiled build (dist/runtime/) two.
const pkg = require(
  new URL(import.meta.url).pathname.endsWith('.ts') ? '../package.json' : '../../package.json',
) as {
  version: string;
};

export const serviceName = 'pier';
export const serviceVersion = pkg.version;

export function identification(hideVersion: boolean): string {
  return hideVersion ? serviceName : `${serviceName}/${serviceVersion}`;
}
