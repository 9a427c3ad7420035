/** Building multipart uploads the way a browser does, for the certificate upload tests. */
import type { Answer, TestServer } from './server.js';

export type PartValue = Buffer | string | { file: Buffer; name: string };

export async function multipart(
  parts: Record<string, PartValue>,
): Promise<{ payload: Buffer; contentType: string }> {
  const form = new FormData();
  for (const [name, value] of Object.entries(parts)) {
    if (typeof value === 'string') form.append(name, value);
    else if (Buffer.isBuffer(value)) form.append(name, new Blob([new Uint8Array(value)]), `${name}.bin`);
    else form.append(name, new Blob([new Uint8Array(value.file)]), value.name);
  }
  const response = new Response(form);
  return {
    payload: Buffer.from(await response.arrayBuffer()),
    contentType: response.headers.get('content-type')!,
  };
}

/** POST /certificates with the parts given and X-Requested-With (unless `headers` says otherwise). */
export async function uploadCertificate(
  server: TestServer,
  parts: Record<string, PartValue>,
  headers: Record<string, string> = { 'x-requested-with': 'XMLHttpRequest' },
): Promise<Answer> {
  const { payload, contentType } = await multipart(parts);
  return server.call('POST', '/api/v1/certificates', {
    payload,
    headers: { 'content-type': contentType, ...headers },
  });
}
