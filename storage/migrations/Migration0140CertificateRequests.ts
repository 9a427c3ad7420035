/**
 * Key pairs pier made for a certificate signing request, waiting for the CA's certificate
 * (docs/decisions/certificate-requests.md). A separate table rather than certificate rows
 * without a certificate: every certificate row has its DER, fingerprint and validity, and
 * the profiles' references, expiry alerts and lists rely on that.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0140CertificateRequests extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table certificate_request (
        id serial primary key,
        description text not null,
        common_name text not null,
        subject text not null,
        key_algorithm varchar(32) not null,
        key_size integer not null,
        key_curve varchar(32) not null,
        signature_algorithm varchar(64) not null,
        csr bytea not null,
        private_key text not null,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table certificate_request;');
  }
}
