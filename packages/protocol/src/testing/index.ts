export * from './fuzz.ts';
export * from './hostileJson.ts';
export { requestFieldNames } from './requestFields.ts';
export * from './requestLines.ts';
export { within } from './within.ts';
