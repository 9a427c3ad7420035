/**
 * Per-partner AS2 interoperability options on the remote profile (docs/interop.md): the preset
 * last applied, the options the sender uses, and the as2bis switch. The defaults are the
 * library's defaultInteropOptions as they were when this landed, so existing partners keep
 * receiving exactly what they received before.
 */
import { Migration } from '@mikro-orm/migrations';

export class Migration0013InteropOptions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table as2_remote_profile
        add column interop_preset varchar(32),
        add column signed_attributes boolean not null default true,
        add column algorithm_protection boolean not null default true,
        add column transfer_encoding varchar(16) not null default 'binary',
        add column body_framing varchar(16) not null default 'content-length',
        add column filename_quoting varchar(16) not null default 'quoted',
        add column mic_spelling varchar(16) not null default 'rfc5751',
        add column key_transport varchar(16) not null default 'rsa-pkcs1',
        add column as2bis boolean not null default false;
    `);
  }
}
