/** How the users of a certificate read in messages and alerts: "the AS2 profile of partner globex (…)". */
import type { CertificateUser } from '../../storage/queries/certificate-users.js';

/** Names at most three users, then counts the rest. */
export function describeCertificateUsers(users: CertificateUser[]): string {
  const shown = users.slice(0, 3).map((u) => {
    const party = u.kind === 'as2-local-profile' ? 'organization' : 'partner';
    return `the AS2 profile of ${party} ${u.name} (${u.fields.join(', ')})`;
  });
  const more = users.length > 3 ? ` and ${users.length - 3} more` : '';
  return `${shown.join(', ')}${more}`;
}
