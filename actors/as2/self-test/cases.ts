/**
 * The cases of the AS2 library's self-test: real messages other implementations sent
 * (Mendelson AS2, OpenAS2, pyas2lib), each with the MIC its sender logged and the SHA-256 of
 * the document inside. The captures are test fixtures (test/fixtures/); `npm run build` copies
 * the files named here (selfTestCaptureFiles) into the build, so that an installed pier, which has
 * no test folder, can read them (see run.ts: capturesDirectory).
 */

export interface SelfTestCase {
  /** Path under the captures' folder (test/fixtures/ in the sources). */
  file: string;
  /** `der`: the body alone (encrypted); `http`: header lines, a blank line, the body. */
  form: 'der' | 'http';
  /** Our certificate and key it is encrypted to, and the sender's certificate, beside `file`'s folder. */
  decryption: { certificate: string; key: string };
  signer: string;
  /** The MIC the sender logged, base64 of SHA-256. */
  mic: string;
  /** SHA-256 of the document inside, hex. */
  documentSha256: string;
}

const lineEndings = {
  decryption: {
    certificate: 'as2-line-endings/certificates/server.crt',
    key: 'as2-line-endings/certificates/server.key',
  },
  signer: 'as2-line-endings/certificates/client.crt',
} as const;

/** [case, OpenAS2's MIC, Mendelson's MIC, document SHA-256] from as2-line-endings/README.md. */
const lineEndingCases: [string, string, string, string][] = [
  [
    'base64_newline',
    'BPd3v8Q+vdx13PEe/K0egVMiJfi6DBSgmyo4mKgM5bU=',
    'WA7oyN5wqF15kPR65fIn+V4yzvsDnpFc025+mSgt0hI=',
    'eaa772bf9d2b494f18631f30ecb19e322b8d922b7f0ed1a6c6eef6ac4ade68c3',
  ],
  [
    'base64_crlf',
    'CFv2BSzsV6zLv44PD2UBeASAjg5bL1L3DHZnJrsRUAI=',
    '4ZkgJXocVDxYRtaitolX29rY9yAWLfmht8NGLCWQtnc=',
    '7b96849d32866613e89f98abbf221d765a38e3409ec37356653b0c97d327da36',
  ],
  [
    'binary_initial_double_newline',
    'O0pF3FMeakUSGbKNmD0rushtjWNfLO29eDvdOiwKoqs=',
    '1a+TLiA2JUtdqd+CVAGbZnRUhSltx5I2nuK3ZaPswB4=',
    'd06404936ede531f6c3abc26b519375b591f1089b0f065aa5cb42ed8be516ad1',
  ],
  [
    'binary_newlines',
    'RX+gWZEQOkou02/9eOPCbtUNYxTJXZbGXtslssIezaY=',
    'eYfOn1VkdCfSQf7trg6Jy8qj7CqMACXtLFY4XSfXyFs=',
    '675c5f51c384c6f9aeeac2496871f4ffbd3659e900a8b2058515a43fd283aa8d',
  ],
  [
    'binary_trailing_double_newline',
    'lGv3z+A33GjNFox7Yzkn+PTNNPbZ19JRhMOvXgp2zSk=',
    'WB54rweCaTk5PkPJApqhks/8wYrN2FhFYJwdwHr4wcY=',
    'd9e81bb61cb490cc1af6de9dc5327ad23e9920567a91930e94ef00f32b0905dc',
  ],
  [
    'binary_initial_double_crlf',
    'dICWO5M3qSfVmyvDHXnVyKGLxkuTlIb4DInirNKBRT0=',
    '46chrZzSsA18bQCAFG9I+UGndcj7QPO5FH6ESccX79U=',
    '456294aaba55f2cb3ffc1ae1991ec9a71dd71ff3951bae87d3caeb29e5a3ac0b',
  ],
  [
    'binary_crlf_lines',
    'P2Ox0s8iJBd3TcNyYfv4IHO1LfkS32U8sdoT/axPjio=',
    'vcqn9ReBEUyJLEe1A0l8L+aVqXGaOLgKTP0us9PgLOw=',
    '1eb582a447beea29c6c11ef349213fd6c42356d50a7113fdfbb70e4e599328c4',
  ],
  [
    'binary_trailing_double_crlf',
    '4FuEDJ+N581GkvjZV4BT7iFsC4JRqGC2pLP2IIuOd1c=',
    'cToHc8OeBOqEuuowBfXWYmMb0ZKTa51LfOa13aK1i6Q=',
    'd48e58f1483304abf973d49bc10b8e228b78a70915ed7878bfd8ef04a2e8e7d0',
  ],
];

export const selfTestCases: readonly SelfTestCase[] = [
  ...lineEndingCases.flatMap(([name, openas2, mendelson, documentSha256]) => [
    {
      file: `as2-line-endings/from_openas2/${name}.pkcs7`,
      form: 'der' as const,
      mic: openas2,
      documentSha256,
      ...lineEndings,
    },
    {
      file: `as2-line-endings/from_mendelson/${name}.pkcs7`,
      form: 'der' as const,
      mic: mendelson,
      documentSha256,
      ...lineEndings,
    },
  ]),
  {
    // RSASSA-PSS with the maximum salt length, compressed inside the signature, AES-256-CBC.
    file: 'pyas2lib-pss/signed-encrypted-compressed.http',
    form: 'http',
    decryption: {
      certificate: 'pyas2lib-pss/certificates/receiver.cert.pem',
      key: 'pyas2lib-pss/certificates/receiver.key.pem',
    },
    signer: 'pyas2lib-pss/certificates/sender.cert.pem',
    mic: '32kwHJCuZGeMSBrNKrXY+eBvAqBJyfONFLY1qcG+WyQ=',
    documentSha256: '862d2e21c3458ff80474fc88da49e970ac5beddc335960ca5b8c24c487245163',
  },
];

/** Where each capture folder says where its files come from and under what licence. */
const provenance = ['as2-line-endings/SOURCE.md', 'as2-line-endings/LICENSE.txt', 'pyas2lib-pss/SOURCE.md'];

/**
 * Every file the self-test reads (captures, certificates, the two public test keys), with the
 * folders' SOURCE.md and LICENSE.txt: what `npm run build` copies from test/fixtures/ into the build.
 */
export const selfTestCaptureFiles: readonly string[] = [
  ...new Set([
    ...selfTestCases.flatMap((c) => [c.file, c.decryption.certificate, c.decryption.key, c.signer]),
    ...provenance,
  ]),
].sort();
