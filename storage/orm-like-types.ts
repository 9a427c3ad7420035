/** How the ORM reads values, for connections made with the pg driver beside its pool. */
import pg from 'pg';

/**
 * Plain driver clients read values as the ORM's connections do (MikroORM's PostgreSqlConnection):
 * dates and times as the text PostgreSQL sends, arrays of them parsed into lists of that text.
 */
export const ormLikeTypes = new pg.TypeOverrides();
for (const oid of [1082, 1114, 1184, 1186]) ormLikeTypes.setTypeParser(oid, (text: string) => text);
for (const oid of [1182, 1115, 1185, 1187]) {
  // text[]'s parser: the same array syntax (its oid is not in the driver's list of builtins).
  const parseArray = (pg.types.getTypeParser as (oid: number) => (text: string) => unknown)(1009);
  ormLikeTypes.setTypeParser(oid, (text: string) => parseArray(text) as unknown);
}
