/** The product name and version used in User-Agent and Server headers (spec 2.11). */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const pkg = require('../package.json') as { version: string };

export const serviceName = 'pier';
export const serviceVersion = pkg.version;

export function identification(hideVersion: boolean): string {
  return hideVersion ? serviceName : `${serviceName}/${serviceVersion}`;
}
