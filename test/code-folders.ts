/** The folders of pier's own code, lowest first: what ships, and where tests beside the code live. */
export const productFolders = [
  'limits',
  'pki',
  'edi',
  'storage',
  'protocol',
  'flow',
  'actors',
  'runtime',
  'api',
  'cli',
];

/** Tests live in test/ (those that cross folders) and beside the code they cover. */
export const testFolders = ['test', ...productFolders];
