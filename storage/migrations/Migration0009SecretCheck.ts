/** A sealed known value, so a process started with another secret key stops at once. */
import { Migration } from '@mikro-orm/migrations';

export class Migration0009SecretCheck extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table settings add column secret_check text not null default '';`);
  }
}
