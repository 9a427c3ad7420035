/** How the users of a certificate read in messages and alerts: "the AS2 profile of partner globex (…)". */
import type { CertificateUser } from '../../storage/queries/certificate-users.js';

function describeUser(u: CertificateUser): string {
  const fields = u.fields.join(', ');
  switch (u.kind) {
    case 'as2-local-profile':
      return `the AS2 profile of organization ${u.name} (${fields})`;
    case 'as2-remote-profile':
      return `the AS2 profile of partner ${u.name} (${fields})`;
    case 'plugin-config':
      return `the plugin configuration ${u.name} (${fields})`;
    default: {
      const never: never = u.kind;
      throw new Error(`unknown certificate user ${String(never)}`);
    }
  }
}

/** Names at most three users, then counts the rest. */
export function describeCertificateUsers(users: CertificateUser[]): string {
  const shown = users.slice(0, 3).map(describeUser);
  const more = users.length > 3 ? ` and ${users.length - 3} more` : '';
  return `${shown.join(', ')}${more}`;
}
