/**
 * Every migration in order. A migration that has landed is never edited: add a new one.
 * Listed explicitly so the same list works from TypeScript sources and compiled code.
 */
import type { MigrationObject } from '@mikro-orm/core';
import { Migration0001Foundation } from './Migration0001Foundation.js';
import { Migration0002Alerts } from './Migration0002Alerts.js';
import { Migration0003Certificates } from './Migration0003Certificates.js';
import { Migration0004Runtime } from './Migration0004Runtime.js';
import { Migration0009SecretCheck } from './Migration0009SecretCheck.js';
import { Migration0011As2Messages } from './Migration0011As2Messages.js';
import { Migration0013InteropOptions } from './Migration0013InteropOptions.js';
import { Migration0014InlinePayloads } from './Migration0014InlinePayloads.js';
import { Migration0020ServiceActions } from './Migration0020ServiceActions.js';
import { Migration0030MessageSearch } from './Migration0030MessageSearch.js';
import { Migration0060StorageCopies } from './Migration0060StorageCopies.js';
import { Migration0040HistoryAnnounce } from './Migration0040HistoryAnnounce.js';
import { Migration0041Notifications } from './Migration0041Notifications.js';
import { Migration0050Identity } from './Migration0050Identity.js';
import { Migration0070InboundPolicy } from './Migration0070InboundPolicy.js';
import { Migration0080PartnerLimits } from './Migration0080PartnerLimits.js';
import { Migration0090FlowConfigVersion } from './Migration0090FlowConfigVersion.js';
import { Migration0100HistoryIdAfterXid } from './Migration0100HistoryIdAfterXid.js';
import { Migration0180ReceiptAlertAt } from './Migration0180ReceiptAlertAt.js';
import { Migration0140CertificateRequests } from './Migration0140CertificateRequests.js';
import { Migration0141MessagePartySearch } from './Migration0141MessagePartySearch.js';
import { Migration0130CertificateExchange } from './Migration0130CertificateExchange.js';
import { Migration0190PartnerSpeaksFor } from './Migration0190PartnerSpeaksFor.js';
import { Migration0200KeyAgreement } from './Migration0200KeyAgreement.js';
import { Migration0210EdiControlNumbers } from './Migration0210EdiControlNumbers.js';
import { Migration0230PartnerStatus } from './Migration0230PartnerStatus.js';
import { Migration0220PartnerEdiEnvelope } from './Migration0220PartnerEdiEnvelope.js';
import { Migration0120EdiEnvelopes } from './Migration0120EdiEnvelopes.js';

export const migrationsList: MigrationObject[] = [
  { name: 'Migration0001Foundation', class: Migration0001Foundation },
  { name: 'Migration0002Alerts', class: Migration0002Alerts },
  { name: 'Migration0003Certificates', class: Migration0003Certificates },
  { name: 'Migration0004Runtime', class: Migration0004Runtime },
  { name: 'Migration0009SecretCheck', class: Migration0009SecretCheck },
  { name: 'Migration0011As2Messages', class: Migration0011As2Messages },
  { name: 'Migration0013InteropOptions', class: Migration0013InteropOptions },
  { name: 'Migration0014InlinePayloads', class: Migration0014InlinePayloads },
  { name: 'Migration0020ServiceActions', class: Migration0020ServiceActions },
  { name: 'Migration0030MessageSearch', class: Migration0030MessageSearch },
  { name: 'Migration0060StorageCopies', class: Migration0060StorageCopies },
  { name: 'Migration0040HistoryAnnounce', class: Migration0040HistoryAnnounce },
  { name: 'Migration0041Notifications', class: Migration0041Notifications },
  { name: 'Migration0050Identity', class: Migration0050Identity },
  { name: 'Migration0070InboundPolicy', class: Migration0070InboundPolicy },
  { name: 'Migration0080PartnerLimits', class: Migration0080PartnerLimits },
  { name: 'Migration0090FlowConfigVersion', class: Migration0090FlowConfigVersion },
  { name: 'Migration0100HistoryIdAfterXid', class: Migration0100HistoryIdAfterXid },
  { name: 'Migration0180ReceiptAlertAt', class: Migration0180ReceiptAlertAt },
  { name: 'Migration0140CertificateRequests', class: Migration0140CertificateRequests },
  { name: 'Migration0141MessagePartySearch', class: Migration0141MessagePartySearch },
  { name: 'Migration0130CertificateExchange', class: Migration0130CertificateExchange },
  { name: 'Migration0120EdiEnvelopes', class: Migration0120EdiEnvelopes },
  { name: 'Migration0190PartnerSpeaksFor', class: Migration0190PartnerSpeaksFor },
  { name: 'Migration0200KeyAgreement', class: Migration0200KeyAgreement },
  { name: 'Migration0210EdiControlNumbers', class: Migration0210EdiControlNumbers },
  { name: 'Migration0220PartnerEdiEnvelope', class: Migration0220PartnerEdiEnvelope },
  { name: 'Migration0230PartnerStatus', class: Migration0230PartnerStatus },
];
