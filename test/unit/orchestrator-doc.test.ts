// docs/orchestrator.md names every field of the three documents an orchestrator reads: the `next`
// JSON, a request file and an escalation notice. This test keeps those tables and the schemas equal,
// and the code it quotes from examples/ quoted verbatim.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { NextDocSchema } from '../../src/contracts/next.js';
import { EscalationNoticeSchema, RequestSchema } from '../../src/contracts/request.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const doc = readFileSync(path.join(root, 'docs/orchestrator.md'), 'utf8');

/** The backticked names in the first column of the first table after `heading`. */
function tableFields(heading: string): string[] {
  const start = doc.indexOf(heading);
  if (start < 0) throw new Error(`docs/orchestrator.md has no heading ${heading}`);
  const lines = doc.slice(start).split('\n');
  const first = lines.findIndex((l) => l.startsWith('| field'));
  const rows = [];
  for (const l of lines.slice(first + 2)) {
    if (!l.startsWith('|')) break;
    rows.push(l);
  }
  return rows.flatMap((r) => [...r.split('|')[1]!.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!)).sort();
}

const keysOf = (schema: { shape: Record<string, unknown> }) => Object.keys(schema.shape).sort();

describe('docs/orchestrator.md', () => {
  it('lists every field of the `next` document, and no other', () => {
    expect(tableFields('### The JSON document')).toEqual(keysOf(NextDocSchema));
  });
  it('lists every field of a request, and no other', () => {
    expect(tableFields('## 4. Requests')).toEqual(keysOf(RequestSchema));
  });
  it('lists every field of an escalation notice, and no other', () => {
    expect(tableFields('## 7. Escalations')).toEqual(keysOf(EscalationNoticeSchema));
  });
  it.each([
    ['bash', 'examples/claude-p-loop.sh'],
    ['ts', 'examples/orchestrator.ts'],
  ])('quotes its %s consumer as it is in %s', (lang, file) => {
    const source = readFileSync(path.join(root, file), 'utf8');
    const blocks = [...doc.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
    expect(blocks.length).toBeGreaterThan(0);
    for (const block of blocks) expect(source).toContain(block);
  });
});
