/** Certificate Exchange Messaging: reading and writing CEM requests and responses. */
export * from './vocabulary.js';
export {
  buildRequestEntity,
  buildResponseEntity,
  newContentId,
  type RequestToBuild,
  type ResponseToBuild,
} from './build.js';
export { readCem } from './read.js';
export { referenceOf, sameCertificate } from './reference.js';
export { cemEntityOf, type CemEntity } from './entity.js';
