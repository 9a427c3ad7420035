/** created_at and updated_at as every record carries them (timestamptz, set by the ORM). */
import { p } from '@mikro-orm/core';

export const createdAt = () =>
  p
    .datetime()
    .columnType('timestamptz')
    .onCreate(() => new Date());

export const updatedAt = () =>
  p
    .datetime()
    .columnType('timestamptz')
    .onCreate(() => new Date())
    .onUpdate(() => new Date());
