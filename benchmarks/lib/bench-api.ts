/** The REST calls a benchmark sets its server up with, as the service account of its token. */
import { readFileSync } from 'node:fs';

export interface BenchApi {
  /** The Authorization header of every call. */
  auth: { authorization: string };
  /** POST of a JSON body; the answer's `data`, or an error naming the call. */
  post(url: string, body: unknown): Promise<Record<string, unknown>>;
  /** Uploads a certificate with its private key (PEM files); its id. */
  certificate(certificateFile: string, privateKeyFile: string): Promise<number>;
}

export function benchApi(serverUrl: string, token: string): BenchApi {
  const auth = { authorization: `Bearer ${token}` };
  return {
    auth,
    async post(url, body) {
      const r = await fetch(`${serverUrl}/api/v1${url}`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (r.status >= 300) throw new Error(`POST ${url}: ${r.status} ${await r.text()}`);
      return ((await r.json()) as { data: Record<string, unknown> }).data;
    },
    async certificate(certificateFile, privateKeyFile) {
      const form = new FormData();
      form.append('certificate', new Blob([readFileSync(certificateFile)]), 'certificate.pem');
      form.append('private_key', new Blob([readFileSync(privateKeyFile)]), 'key.pem');
      form.append('description', 'bench');
      const up = await fetch(`${serverUrl}/api/v1/certificates`, {
        method: 'POST',
        headers: { ...auth, 'x-requested-with': 'XMLHttpRequest' },
        body: form,
      });
      if (up.status !== 201) throw new Error(`certificate upload: ${await up.text()}`);
      return ((await up.json()) as { data: { id: number } }).data.id;
    },
  };
}
