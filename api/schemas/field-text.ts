/**
 * What every property of a request body is called for a person, and what to put in it: the
 * label and help the web forms print beside a field and the `title` and `description` the
 * OpenAPI document gives the same property. A property's own `.describe()` on its schema is
 * more specific and wins on both paths; the help here is for properties whose schema says
 * nothing. The section says where a form draws the field; folded sections are the settings
 * most operators never change (interop tweaks, limits, retries), kept shut in a `<details>`.
 */

export type FieldSection =
  | 'basics'
  | 'certificates'
  | 'security'
  | 'receipts'
  | 'connection'
  | 'inbound'
  | 'limits'
  | 'retries'
  | 'alerts'
  | 'interop'
  | 'storage'
  | 'identity';

export const sectionTitles: Record<FieldSection, { title: string; folded: boolean }> = {
  basics: { title: 'Basics', folded: false },
  certificates: { title: 'Certificates', folded: false },
  security: { title: 'Signing and encryption', folded: false },
  receipts: { title: 'Receipts (MDN)', folded: false },
  connection: { title: 'Connection', folded: false },
  inbound: { title: 'What the partner must send', folded: true },
  limits: { title: 'Limits', folded: true },
  retries: { title: 'Retries', folded: true },
  alerts: { title: 'Alerts', folded: true },
  interop: { title: 'Advanced interop settings', folded: true },
  storage: { title: 'Payload storage', folded: false },
  identity: { title: 'Identity provider', folded: false },
};

export interface FieldText {
  label: string;
  /** Used where the property's schema has no description of its own. */
  help: string;
  section?: FieldSection;
}

const retries = 'retries' as const;

export const fieldTexts: Record<string, FieldText> = {
  // Records
  id: { label: 'Id', help: 'Assigned by the server; when sent, must be the id in the path' },
  role: { label: 'Role', help: 'What it may do: admin, operator or viewer' },
  auto_provision_role: {
    label: 'Role of new people',
    help: "Role given to a person the provider signs in whom pier does not know yet; '' refuses them",
    section: 'identity',
  },
  local_organization_id: { label: 'Organization', help: 'The organization the profile belongs to' },
  business_partner_id: { label: 'Partner', help: 'The partner the profile belongs to' },
  import_token: { label: 'Import token', help: 'The token the upload answered, valid for 10 minutes' },
  certificates: {
    label: 'Certificates to import',
    help: 'Each by its index in the upload, with a description',
  },
  name: {
    label: 'Name',
    help: 'Lower case letters, digits, _ or -; unique. Other settings refer to it by this name',
  },
  display_name: { label: 'Display name', help: 'How people see it in lists and pages' },
  description: { label: 'Description', help: 'A note for people; not used by the exchange' },
  enabled: { label: 'Enabled', help: 'Off keeps the record without using it' },
  // Routes
  source_plugin: { label: 'Source instance', help: 'Instance the messages come in through' },
  from: { label: 'From', help: 'Sending party, or * for any' },
  to: { label: 'To', help: 'Receiving party, or * for any' },
  target_plugin: { label: 'Target instance', help: 'Instance that delivers the messages' },
  // AS2 profiles
  as2id: {
    label: 'AS2 id',
    help: 'The AS2 identifier (AS2-From / AS2-To) agreed with the partner; case matters',
  },
  endpoint: { label: 'Partner AS2 URL', help: "The partner's AS2 address messages are posted to" },
  signing_certificate_id: {
    label: 'Signing certificate',
    help: 'Our certificate with its private key that signs',
    section: 'certificates',
  },
  decryption_certificate_ids: {
    label: 'Decryption certificates',
    help: 'Our certificates with private keys that partners encrypt to',
    section: 'certificates',
  },
  async_mdn_url: {
    label: 'Asynchronous receipt URL',
    help: 'Where partners send receipts later',
    section: 'receipts',
  },
  partner_certificate_id: {
    label: 'Partner encryption certificate',
    help: 'Certificate messages to the partner are encrypted for',
    section: 'certificates',
  },
  signature_certificate_ids: {
    label: 'Partner signature certificates',
    help: "Certificates that verify the partner's signatures",
    section: 'certificates',
  },
  signing_algorithm: { label: 'Signature digest', help: 'Digest of our signature', section: 'security' },
  encryption_algorithm: {
    label: 'Encryption',
    help: 'Cipher messages to the partner are encrypted with; none sends them unencrypted',
    section: 'security',
  },
  compression: { label: 'Compress', help: 'Compress messages before sending', section: 'security' },
  mdn_mode: { label: 'Receipt', help: 'Which receipt to ask for', section: 'receipts' },
  mdn_signed: { label: 'Signed receipt', help: 'Ask for a signed receipt', section: 'receipts' },
  receipt_timeout_hours: {
    label: 'Receipt deadline (hours)',
    help: 'Hours to wait for an asynchronous receipt',
    section: 'receipts',
  },
  http_basic_user: {
    label: 'HTTP user',
    help: 'User for HTTP basic authentication; empty for none',
    section: 'connection',
  },
  http_basic_password: { label: 'HTTP password', help: 'Write-only', section: 'connection' },
  http_headers: {
    label: 'Extra HTTP headers',
    help: 'Write-only list of {"name", "value"} objects',
    section: 'connection',
  },
  tls_verify: {
    label: 'Verify HTTPS certificate',
    help: "Verify the partner's HTTPS server certificate",
    section: 'connection',
  },
  tls_trusted_certificate_ids: {
    label: 'Trusted HTTPS certificates',
    help: "Extra certificates trusted for the partner's HTTPS endpoint",
    section: 'connection',
  },
  tls_client_certificate_id: {
    label: 'TLS client certificate',
    help: 'Certificate presented to the partner as TLS client certificate',
    section: 'connection',
  },
  as2bis: {
    label: 'Modern algorithms only (AS2 1.2bis)',
    help: 'Never send SHA-1, MD5, 3DES or RC2',
    section: 'security',
  },
  inbound_signature: {
    label: 'Signature from the partner',
    help: 'Required or optional',
    section: 'inbound',
  },
  inbound_encryption: {
    label: 'Encryption from the partner',
    help: 'Required or optional',
    section: 'inbound',
  },
  inbound_algorithms: {
    label: 'Algorithms accepted from the partner',
    help: 'any or modern',
    section: 'inbound',
  },
  max_message_mib: {
    label: 'Largest message (MiB)',
    help: 'Largest message accepted, in MiB',
    section: 'limits',
  },
  interop_preset: {
    label: 'Interop preset',
    help: "A named bundle of settings for a partner's software",
    section: 'interop',
  },
  signed_attributes: {
    label: 'Signed attributes',
    help: 'Signed attributes in our signatures',
    section: 'interop',
  },
  algorithm_protection: {
    label: 'Algorithm protection attribute',
    help: 'The CMSAlgorithmProtection signed attribute',
    section: 'interop',
  },
  transfer_encoding: {
    label: 'Transfer encoding',
    help: 'Content-Transfer-Encoding of the document',
    section: 'interop',
  },
  body_framing: { label: 'Body framing', help: 'Content-Length or chunked', section: 'interop' },
  filename_quoting: { label: 'File name quoting', help: 'Quoted or token file name', section: 'interop' },
  mic_spelling: { label: 'MIC algorithm spelling', help: 'sha-256 or sha256', section: 'interop' },
  key_transport: {
    label: 'Key transport',
    help: 'RSA key transport of encrypted messages',
    section: 'interop',
  },
  key_agreement: {
    label: 'Key agreement',
    help: 'EC key agreement of encrypted messages: ECDH, or 1-pass ECMQV with our static key',
    section: 'interop',
  },
  // Certificates, API tokens, service accounts
  service_account: { label: 'Service account', help: 'Local service account the token acts as' },
  label: { label: 'Label', help: 'What the token is for, so it can be found and revoked' },
  expires_in_days: { label: 'Valid for (days)', help: 'Days until the token expires; 1 to 365' },
  kind: { label: 'Kind', help: 'local: API tokens; federated: tokens of an identity provider' },
  oidc_issuer: { label: 'Identity provider issuer', help: "Federated: the provider's issuer URL" },
  oidc_subject: { label: 'Subject', help: "Federated: the sub of the account's tokens" },
  // Identity providers
  issuer_url: {
    label: 'Issuer URL',
    help: "Exactly as in the provider's discovery document",
    section: 'identity',
  },
  client_id: { label: 'Client id', help: 'The client registered at the provider', section: 'identity' },
  client_secret: { label: 'Client secret', help: 'Write-only', section: 'identity' },
  scopes: { label: 'Sign-in scopes', help: 'Space separated; must include openid', section: 'identity' },
  api_scopes: {
    label: 'Scopes API tokens need',
    help: 'Space separated; empty for none',
    section: 'identity',
  },
  api_audience: { label: 'API audience', help: 'Empty means the client id', section: 'identity' },
  sign_in: {
    label: 'People sign in with it',
    help: 'Off for a provider that only issues tokens to machines',
  },
  accept_tokens_without_audience: {
    label: 'Accept tokens without audience',
    help: 'From a registered federated service account only',
    section: 'identity',
  },
  role_claim: {
    label: 'Role claim',
    help: 'Claim of the ID token that carries the role',
    section: 'identity',
  },
  role_mapping: { label: 'Role mapping', help: 'Claim values and the role each gives', section: 'identity' },
  // Settings
  storage_backend: { label: 'Where payloads are stored', help: 'local directory or s3', section: 'storage' },
  storage_local_directory: { label: 'Local directory', help: 'For local storage', section: 'storage' },
  storage_s3_bucket: { label: 'S3 bucket', help: 'For s3 storage; must exist', section: 'storage' },
  storage_s3_region: { label: 'S3 region', help: 'For s3 storage', section: 'storage' },
  storage_s3_endpoint: {
    label: 'S3 endpoint',
    help: "Empty for the provider's own service",
    section: 'storage',
  },
  delivery_max_dispatches: {
    label: 'Announcements before stalled',
    help: 'How often an unclaimed delivery is announced again before it is marked stalled',
  },
  identification_hide_version: {
    label: 'Hide the version',
    help: 'Leave the version out of User-Agent and Server headers',
  },
  // EDI
  interchange_ids: {
    label: 'Interchange ids',
    help: 'Ids in EDI envelopes with their qualifiers (ISA05/06, ISA07/08, UNB); qualifier "" matches any',
  },
  x12_acknowledgement: {
    label: 'X12 acknowledgement',
    help: 'What to send back for an X12 interchange: none, 997 or 999',
  },
  edifact_acknowledgement: {
    label: 'EDIFACT acknowledgement',
    help: 'What to send back for an EDIFACT interchange: none or CONTRL',
  },
  speaks_for: {
    label: 'Sends for partners',
    help: 'Partners this partner may send interchanges for (a hub or a VAN), one name per line; empty: only for itself',
  },
  edi_envelope: {
    label: 'Envelope settings',
    help: 'For interchanges pier builds for this partner, as JSON: x12_version (00401), x12_element/component/repetition/segment (* > "" ~), edifact_syntax (UNOC:3), edifact_element/component/repetition/release/segment (+ : "" ? \'), test, acknowledgement_requested; left out: the default',
  },
  acknowledgement_due_hours: {
    label: 'Acknowledgement due (hours)',
    help: 'Hours within which the partner should acknowledge what we send; 0: none expected',
  },
  document_type: {
    label: 'Document type',
    help: 'X12 transaction set (850, 856…) or EDIFACT message type (ORDERS…); * for any',
  },
  // Certificates: generated, and a CA's answer to a request
  key: { label: 'Key', help: 'RSA 2048, 3072 or 4096 bits, or EC P-256 or P-384' },
  subject: { label: 'Subject', help: 'Common name, and optionally organization, unit, country and e-mail' },
  valid_days: { label: 'Valid for (days)', help: 'Days the self-signed certificate is valid' },
  output: { label: 'Make', help: 'A self-signed certificate, or a request (CSR) for a CA to sign' },
  certificate: { label: 'Certificate', help: "The CA's certificate for the request's key, PEM" },
  // Certificate exchange (CEM)
  partner_id: { label: 'Partner', help: 'The partner to send our new certificate to' },
  certificate_id: { label: 'New certificate', help: 'Our certificate, with its key, to send' },
  usages: { label: 'Usages', help: 'What the partner should use it for: signature, encryption, tls' },
  respond_by: { label: 'Respond by', help: 'When the partner must answer; the switch happens then' },
  decision: { label: 'Answer', help: 'accept or reject' },
  reason: { label: 'Reason', help: 'Why, sent to the partner with a rejection' },
  policy: { label: 'Answering policy', help: 'manual (an operator answers), accept or reject' },
  // Partner tools
  sender: { label: 'AS2 sender instance', help: 'May be left out when only one exists' },
  organization: { label: 'Sending organization', help: 'May be left out when it is unambiguous' },
  // Plugin instances: AS2 receiver
  host: { label: 'Listen address', help: 'Address the receiver listens on', section: 'connection' },
  port: { label: 'Port', help: 'TCP port', section: 'connection' },
  path: { label: 'URL path', help: 'URL path partners post to', section: 'connection' },
  max_requests_per_partner: {
    label: 'Requests at once per partner',
    help: 'More are answered 503',
    section: 'limits',
  },
  max_in_flight_mib_per_partner: {
    label: 'MiB in progress per partner',
    help: 'More are answered 503',
    section: 'limits',
  },
  max_requests_per_address: {
    label: 'Requests at once per IP address',
    help: 'More are answered 503',
    section: 'limits',
  },
  max_in_flight_mib_per_address: {
    label: 'MiB in progress per IP address',
    help: 'More are answered 503',
    section: 'limits',
  },
  large_messages_budget_mib: {
    label: 'Large messages budget (MiB)',
    help: 'MiB of large messages open at once',
    section: 'limits',
  },
  tls_certificate_id: {
    label: 'HTTPS certificate',
    help: 'Stored certificate with its key to serve HTTPS with; none serves plain HTTP',
    section: 'connection',
  },
  public_url: { label: 'Public URL', help: 'URL partners reach this receiver at', section: 'connection' },
  listener_threads: {
    label: 'Listener threads',
    help: 'Threads taking messages on the port; 0 is one per 4 cores (more than one needs Node 22.12 or later)',
    section: 'limits',
  },
  // AS2 sender, HTTP poster, file poller and writer
  timeout_seconds: { label: 'Timeout (seconds)', help: 'Seconds an attempt may take' },
  max_concurrent_deliveries: {
    label: 'Deliveries at once',
    help: 'Number of deliveries worked on at the same time; 1 to 100',
    section: 'limits',
  },
  threads: {
    label: 'Threads',
    help: 'Threads doing the work, each with its own database connections; 0 is one per 4 cores',
    section: 'limits',
  },
  compression_order: { label: 'Compression order', help: 'Before or after signing', section: 'interop' },
  max_attempts: {
    label: 'Attempts',
    help: 'Attempts in all, the first included, before the delivery fails',
    section: retries,
  },
  retry_interval: {
    label: 'First retry after (seconds)',
    help: 'Seconds before the second attempt',
    section: retries,
  },
  retry_backoff: {
    label: 'Backoff factor',
    help: 'Each further wait is the previous one times this',
    section: retries,
  },
  retry_max_interval: {
    label: 'Longest wait (seconds)',
    help: 'Seconds a wait never exceeds',
    section: retries,
  },
  unreachable_alert_attempts: {
    label: 'Unreachable after attempts',
    help: 'Failed attempts in a row',
    section: 'alerts',
  },
  unreachable_alert_seconds: {
    label: 'Unreachable after (seconds)',
    help: 'Seconds after a first failure',
    section: 'alerts',
  },
  receipt_alert_minutes: {
    label: 'Receipt late after (minutes)',
    help: 'Minutes an asynchronous receipt may be late before the partner is said to send none; 0: at the receipt timeout',
    section: 'alerts',
  },
  read_edi_envelope: {
    label: 'Read EDI envelopes',
    help: 'Read the X12 or EDIFACT envelope of each payload, to route and acknowledge by it',
    section: 'inbound',
  },
  // SFTP poller and sender
  username: { label: 'User name', help: 'The account on the SFTP server', section: 'connection' },
  password: { label: 'Password', help: 'Write-only; a password or a private key', section: 'connection' },
  private_key: {
    label: 'Private key',
    help: 'Write-only; OpenSSH or PEM, instead of a password',
    section: 'connection',
  },
  private_key_passphrase: {
    label: 'Private key passphrase',
    help: 'Write-only; when the private key has one',
    section: 'connection',
  },
  host_key_fingerprint: {
    label: "Server's host key",
    help: 'SHA256 fingerprint as OpenSSH prints it; confirm it with the partner before pinning',
    section: 'connection',
  },
  fingerprint: { label: 'Host key fingerprint', help: 'The SHA256 fingerprint the server presents now' },
  remote_directory: { label: 'Remote directory', help: 'Directory on the SFTP server' },
  after_take: { label: 'After taking a file', help: 'Move it to the processed directory, or delete it' },
  base_directory: { label: 'Watched directory', help: 'Directory watched for files' },
  processed_directory: {
    label: 'Processed directory',
    help: 'Where a file goes once its message is accepted',
  },
  path_pattern: { label: 'Path pattern', help: 'Path of a file below the directory, with placeholders' },
  file_pattern: { label: 'File names', help: 'File names taken, * and ? as wildcards' },
  polling_interval: { label: 'Look every (seconds)', help: 'Seconds between two looks at the directory' },
  directory: { label: 'Directory', help: 'Directory files are written to' },
  // Program runner
  program: {
    label: 'Program',
    help: 'Absolute path of the program to run; it is run directly, never by a shell',
  },
  arguments: {
    label: 'Arguments',
    help: 'Arguments, one each, with placeholders such as {file}, {fileName}, {messageId}, {from}, {to}, {direction}',
  },
  work_directory: {
    label: 'Work directory',
    help: 'Directory the document is written to for the run ({file}), and removed from after it',
  },
  environment: {
    label: 'Environment variables',
    help: 'Write-only; variables the program gets (a password or token), never in its arguments',
    section: 'security',
  },
  if_exists: { label: 'When the file exists', help: 'fail (and retry) or rename the new one' },
  url: { label: 'URL', help: 'Address requests are sent to', section: 'connection' },
  http_basic_username: {
    label: 'HTTP user',
    help: 'User for HTTP basic authentication; empty for none',
    section: 'connection',
  },
  content_type: { label: 'Content type', help: 'Content-Type of the request' },
  // Configuration files
  document: { label: 'Configuration file', help: 'The file, YAML or JSON (docs/configuration-files.md)' },
  prune: { label: 'Prune', help: 'Delete what the file does not name (apply only)' },
  confirm_delete: {
    label: 'Records to delete',
    help: "With prune: the number of records the plan says the prune deletes; needed when that is more than half of the install's records",
  },
  // Outbound proxy (AS2 sender, HTTP poster, webhook notifier)
  proxy_url: {
    label: 'Proxy',
    help: 'http://host:port; empty: HTTPS_PROXY or HTTP_PROXY of the environment; none: always direct (NO_PROXY is respected)',
    section: 'connection',
  },
  proxy_username: { label: 'Proxy user', help: 'User for the proxy; empty for none', section: 'connection' },
  proxy_password: {
    label: 'Proxy password',
    help: 'Password for the proxy (write-only)',
    section: 'connection',
  },
  // Notifiers
  format: { label: 'Body format', help: 'json (Standard Webhooks), slack or teams' },
  min_severity: { label: 'Least severe alert sent', help: 'info, warning or critical' },
  basic_username: {
    label: 'HTTP user',
    help: 'User for HTTP basic authentication; empty for none',
    section: 'connection',
  },
  basic_password: { label: 'HTTP password', help: 'Write-only', section: 'connection' },
  headers: {
    label: 'Extra HTTP headers',
    help: 'Write-only list of {"name", "value"} objects',
    section: 'connection',
  },
  signing_secret: {
    label: 'Signing secret',
    help: 'Write-only Standard Webhooks secret',
    section: 'security',
  },
  signing_secret_overlap_hours: {
    label: 'Old secret keeps signing (hours)',
    help: 'Hours a replaced signing secret keeps signing',
    section: 'security',
  },
  cooldown_seconds: {
    label: 'Quiet time (seconds)',
    help: 'An alert repeated within this time is suppressed',
    section: 'alerts',
  },
  group_window_seconds: {
    label: 'Group window (seconds)',
    help: 'Alerts of one code within it go out together',
    section: 'alerts',
  },
  smtp_host: { label: 'SMTP server', help: 'Host name or address', section: 'connection' },
  smtp_port: { label: 'SMTP port', help: '587 for starttls, 465 for tls', section: 'connection' },
  smtp_security: { label: 'SMTP security', help: 'starttls, tls or none', section: 'connection' },
  smtp_username: { label: 'SMTP user', help: 'Empty for none', section: 'connection' },
  smtp_password: { label: 'SMTP password', help: 'Write-only', section: 'connection' },
  tls_ca: {
    label: 'Trusted CA certificates',
    help: 'PEM certificates trusted for the SMTP server',
    section: 'connection',
  },
  subject_prefix: { label: 'Subject prefix', help: 'Put before every subject line' },
  // A message sent as EDI JSON, and its control numbers
  target: { label: 'Target', help: 'Target instance; without it, the one target the routes name' },
  file_name: { label: 'File name', help: 'Name of the file the message carries' },
  interchange: { label: 'Interchange', help: 'A whole interchange in its JSON form, sent as given' },
  documents: { label: 'Documents', help: 'Documents without envelopes; pier builds the interchange' },
  last_value: {
    label: 'Last number given',
    help: 'The next interchange takes one more (0: start again at 1)',
  },
};

/** A property's words: its entry, or its name spelled out when a new property has none yet. */
export function fieldTextOf(name: string): FieldText {
  return fieldTexts[name] ?? { label: name.replace(/_/g, ' '), help: '' };
}

type Json = Record<string, unknown>;

/**
 * Gives each property of every object in a JSON Schema (the OpenAPI document's) the label as
 * its `title`, and the help as its `description` where the schema has none, so the document
 * and the forms say the same.
 */
export function addFieldTexts(schema: unknown): void {
  if (Array.isArray(schema)) {
    for (const item of schema) addFieldTexts(item);
    return;
  }
  if (!schema || typeof schema !== 'object') return;
  const node = schema as Json;
  const properties = node.properties as Record<string, Json> | undefined;
  if (properties && typeof properties === 'object') {
    for (const [name, property] of Object.entries(properties)) {
      const text = fieldTexts[name];
      if (!text || !property || typeof property !== 'object') continue;
      property.title ??= text.label;
      if (property.description === undefined && text.help) property.description = text.help;
    }
  }
  for (const value of Object.values(node)) addFieldTexts(value);
}
