export * from './fuzz.ts';
export * from './hostileJson.ts';
export { requestFieldNames } from './requestFields.ts';
export { within } from './within.ts';
