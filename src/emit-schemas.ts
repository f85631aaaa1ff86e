// `npm run schemas`: write schemas/*.schema.json from the zod contracts.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderSchemas } from './contracts/schemas.js';

const dir = path.resolve(process.argv[2] ?? 'schemas');
mkdirSync(dir, { recursive: true });
for (const [file, text] of renderSchemas()) {
  writeFileSync(path.join(dir, file), text);
  process.stdout.write(`wrote ${path.join(path.relative(process.cwd(), dir) || '.', file)}\n`);
}
