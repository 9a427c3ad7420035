/**
 * The name of every migration, in the order they run, and those a database records as applied:
 * what a start and the doctor compare without loading the migrator (index.ts gives each name its
 * class). A migration that has landed is never renamed or removed.
 */
import type { EntityManager } from '@mikro-orm/postgresql';

export const migrationNames = [
  'Migration0001Foundation',
  'Migration0002Alerts',
  'Migration0003Certificates',
  'Migration0004Runtime',
  'Migration0009SecretCheck',
  'Migration0011As2Messages',
  'Migration0013InteropOptions',
  'Migration0014InlinePayloads',
  'Migration0020ServiceActions',
  'Migration0030MessageSearch',
  'Migration0060StorageCopies',
  'Migration0040HistoryAnnounce',
  'Migration0041Notifications',
  'Migration0050Identity',
  'Migration0070InboundPolicy',
  'Migration0080PartnerLimits',
  'Migration0090FlowConfigVersion',
  'Migration0100HistoryIdAfterXid',
  'Migration0180ReceiptAlertAt',
  'Migration0140CertificateRequests',
  'Migration0141MessagePartySearch',
  'Migration0130CertificateExchange',
  'Migration0120EdiEnvelopes',
  'Migration0190PartnerSpeaksFor',
  'Migration0200KeyAgreement',
  'Migration0210EdiControlNumbers',
  'Migration0220PartnerEdiEnvelope',
  'Migration0230PartnerStatus',
  'Migration0240HistoryAnnounceBare',
] as const;

export type MigrationName = (typeof migrationNames)[number];

/** Names of the migrations a database records as applied, or undefined when it has none (never migrated). */
export async function appliedMigrations(em: EntityManager): Promise<string[] | undefined> {
  const connection = em.getConnection();
  const [table] = await connection.execute<{ found: string | null }[]>(
    "select to_regclass('mikro_orm_migrations')::text as found",
  );
  if (!table?.found) return undefined;
  const rows = await connection.execute<{ name: string }[]>(
    'select name from mikro_orm_migrations order by id',
  );
  return rows.map((r) => r.name);
}
