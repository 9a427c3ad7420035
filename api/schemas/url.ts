/** URL rules shared by every resource that stores an address (docs/api/conventions.md#urls). */

/** Query parameter names that carry a credential. */
const credentialParams =
  /^(token|access_token|auth_token|api_key|apikey|api-key|key|password|passwd|pwd|secret|client_secret|signature|sig|x-amz-signature|x-amz-credential|x-amz-security-token)$/i;

/** True when the URL holds a credential as userinfo or in a query parameter such as token or api_key. */
export function urlCarriesCredentials(url: URL): boolean {
  return (
    url.username !== '' ||
    url.password !== '' ||
    [...url.searchParams.keys()].some((k) => credentialParams.test(k))
  );
}

/** The problem with an absolute http(s) URL, or undefined when it is fine. */
export function httpUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'Must be an absolute http or https URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'Must be an absolute http or https URL';
  if (urlCarriesCredentials(url))
    return 'Must not contain credentials (user name, password or a token parameter)';
  return undefined;
}
