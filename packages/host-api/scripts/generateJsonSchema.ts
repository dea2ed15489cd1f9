import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { JSON_SCHEMA_PATH, renderHostApiJsonSchema } from '../src/jsonSchema.ts';

writeFileSync(JSON_SCHEMA_PATH, renderHostApiJsonSchema());
process.stdout.write(`wrote ${fileURLToPath(JSON_SCHEMA_PATH)}\n`);
