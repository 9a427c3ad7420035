/**
 * How pier agrees a key with a partner's EC encryption certificate (docs/interop.md): `ecdh`, what
 * every partner got before this column, or `ecmqv` (1-pass ECMQV, RFC 5753 §3.2) for partners
 * whose BouncyCastle-based gateway expects it.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0200KeyAgreement extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table as2_remote_profile add column key_agreement varchar(16) not null default 'ecdh';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`alter table as2_remote_profile drop column key_agreement;`);
  }
}
