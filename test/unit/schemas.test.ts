import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderSchemas } from '../../src/contracts/schemas.js';
import { REPO_ROOT } from '../helpers/cli.js';

describe('schemas/', () => {
  const rendered = renderSchemas();
  it.each([...rendered.keys()])('%s matches the zod contract (run `npm run schemas` when this fails)', (file) => {
    const committed = readFileSync(path.join(REPO_ROOT, 'schemas', file), 'utf8');
    expect(committed, `schemas/${file} is stale: run \`npm run schemas\``).toBe(rendered.get(file));
  });

  it('holds no schema that the contracts no longer emit', () => {
    expect(readdirSync(path.join(REPO_ROOT, 'schemas')).sort()).toEqual([...rendered.keys()].sort());
  });
});
