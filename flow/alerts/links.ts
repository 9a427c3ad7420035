/**
 * Where an alert's link leads: the web UI page on which its subject is seen and, for a
 * condition, fixed (an operator who opens a notification lands on a page, not on
 * JSON). Paths under the web UI's prefix, made absolute with PUBLIC_URL when shown or sent.
 */

/** The web UI's prefix (api/ui/layout.ts); flow/ cannot import api/, so it is repeated here. */
const ui = '/ui';

export const alertLinks = {
  message: (id: string) => `${ui}/messages/${encodeURIComponent(id)}`,
  certificate: (id: string | number) => `${ui}/certificates/${encodeURIComponent(String(id))}`,
  /** The instance's configuration form: its address, port and retry settings are changed there. */
  instance: (type: string, name: string) =>
    `${ui}/instances/${encodeURIComponent(type)}/${encodeURIComponent(name)}`,
  /** An AS2 partner's profile: its endpoint, certificates and receipt settings are changed there. */
  partnerProfile: (id: number) => `${ui}/partners/${id}/profile`,
  /** A certificate exchange with a partner (CEM): its certificates, answers and dates. */
  certificateExchange: (id: number) => `${ui}/cem/${id}`,
  /** The storage settings. */
  settings: () => `${ui}/settings`,
  dashboard: () => ui,
} as const;
