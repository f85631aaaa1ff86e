// The fast YAML reader must give exactly what the full parser gives, or decline: on the example
// state file, on state files as the fleet bench and the tests write them, on generated documents
// written every way `yaml` writes them, and on corrupted copies of those (where the full parser
// finds an error, the fast reader must decline, so the positioned message is still produced).
import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseDocument, stringify, type ToStringOptions } from 'yaml';
import { fleetRow, fleetStateYaml } from '../../bench/fleet.js';
import { fastYaml } from '../../src/contracts/fast-yaml.js';
import { parseYaml, parseYamlPositioned } from '../../src/contracts/parse-yaml.js';
import { parseStateFile, StateFileSchema } from '../../src/contracts/state-file.js';

/** The full parser's value, or `error` when it finds a problem. */
function full(text: string): unknown {
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true, logLevel: 'error' });
  if (doc.errors.length > 0) return 'error';
  try {
    return doc.toJS({ maxAliasCount: 0 }) ?? {};
  } catch {
    return 'error';
  }
}

/** The fast reader declines, or agrees with the full parser; true when it accepted. */
function agrees(text: string): boolean {
  const fast = fastYaml(text);
  const slow = full(text);
  if (fast === undefined) return false;
  expect(slow, `fast reader accepted what the full parser rejects:\n${text}`).not.toBe('error');
  // node's comparison: vitest's toStrictEqual also compares `.constructor`, which a key of that name shadows.
  expect(isDeepStrictEqual(fast, slow), `${text}\n${JSON.stringify(fast)}\n${JSON.stringify(slow)}`).toBe(true);
  return true;
}

/** A seeded generator (mulberry32), so a failure is reproducible. */
function rng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Pieces of scalars: what state files hold (benign), and everything YAML treats specially. */
const BENIGN = [
  'a',
  'Z',
  ' ',
  'word',
  'PROJ-1',
  'task-1001',
  '2026-04-02T10:00:00Z',
  ': ',
  'é',
  '"',
  "'",
  '-',
  ',',
  '.',
  '/src/x.ts',
  'npm run test:integration',
];
const NASTY = [
  ...BENIGN,
  '  ',
  ':',
  ' #',
  '#',
  '\\',
  '- ',
  '\n',
  '\n\n',
  '漢',
  '😀',
  '\x07',
  '\t',
  '0',
  '42',
  'null',
  'true',
  '0x1F',
  '1e3',
  '007',
  '.5',
  '~',
  '[',
  '}',
  '&x',
  '*x',
  '!t',
  '|',
  '>',
  '%',
  '@',
  '`',
  '?',
];
const KEYS = ['task_id', 'status', 'last_output', 'a', 'b-c', 'x_1', 'True', 'null', 'constructor', 'on', 'y'];

function randomString(r: () => number, pieces: string[]): string {
  const n = Math.floor(r() * 12);
  let s = '';
  for (let i = 0; i < n; i++) s += pieces[Math.floor(r() * pieces.length)];
  if (r() < 0.2) s = 'a long line of words that goes past the width so the writer folds it '.repeat(1 + Math.floor(r() * 3)) + s;
  return s;
}

function randomValue(r: () => number, depth: number, isNasty: boolean): unknown {
  const x = r();
  if (depth < 3 && x < 0.15) return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1, isNasty));
  if (depth < 3 && x < 0.3) return randomMap(r, depth + 1, isNasty);
  if (x < 0.4) return isNasty ? [0, 1, 7, 42, 600000, -3, 2.5, 1e21, -0, 123456789012345678].at(Math.floor(r() * 10)) : Math.floor(r() * 1000);
  if (x < 0.45) return r() < 0.5;
  if (x < 0.5) return null;
  return randomString(r, isNasty ? NASTY : BENIGN);
}

function randomMap(r: () => number, depth: number, isNasty: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const n = Math.floor(r() * 5);
  for (let i = 0; i < n; i++) out[KEYS[Math.floor(r() * (isNasty ? KEYS.length : 6))]!] = randomValue(r, depth, isNasty);
  return out;
}

const WRITERS: ToStringOptions[] = [
  {},
  { lineWidth: 24, minContentWidth: 4 },
  { indentSeq: false },
  { indent: 4 },
  { defaultStringType: 'QUOTE_DOUBLE' },
  { defaultStringType: 'QUOTE_SINGLE', defaultKeyType: 'PLAIN' },
  { doubleQuotedAsJSON: true },
  { lineWidth: 0 },
];

/** A state file as the fleet bench writes it, `n` rows. */
const fleetStateFile = (n: number) => fleetStateYaml(Array.from({ length: n }, (_, k) => fleetRow(k)));

describe('fast YAML reader', () => {
  it('reads the example state file and the fleet bench state file, the same as the full parser', () => {
    const example = readFileSync('.onex_state.example/epics/PROJ-1000/state.yaml', 'utf8');
    for (const text of [example, fleetStateFile(50), stringify({ current_wave: { wave_id: 1, dispatched_at: '2026-04-02T10:00:00Z', tasks: [] } })]) {
      expect(agrees(text)).toBe(true); // accepted, not only declined
      const fast = parseYaml(text, StateFileSchema, { file: 'state.yaml' });
      expect(fast.ok).toBe(true);
      expect(fast).toStrictEqual(parseYamlPositioned(text, StateFileSchema, { file: 'state.yaml' }));
    }
  });

  it('reads the shapes orchestrators write: indentless sequences (PyYAML), comments, quoted scalars, folded lines', () => {
    const texts = [
      '# head\nwaves:\n- wave_id: 1\n  tasks:\n  - ticket_id: P-1   # trailing\n    status: merged\n\n  # between\n  - ticket_id: \'P-2\'\n    status: "in_progress" # c\n',
      "a:\n  b: \"one two\n    three\\\n    four\n\n    five\"\n  c: 'it''s'\n  d:\n  e: ~\n  f: []\n  g: {}\n",
      "a: b\n  c\n\n  d\nb: 'x\n\n  y'\n",
      'a: "\\x41\\u00e9\\U0001F600\\t\\"\\\\\\/\\ \\N\\_\\L\\P\\0\\a\\b\\e\\f\\v\\r\\n"\nb: 0\nc: 600000\nd: TRUE\ne: False\nf: Null\n',
    ];
    let accepted = 0;
    for (const text of texts) if (agrees(text)) accepted++;
    expect(accepted).toBe(texts.length);
  });

  it('agrees on scalars at the edges of the core schema (numbers, nulls, comments, escapes)', () => {
    const values = [
      '1_000',
      '0b101',
      '+1',
      '1.',
      '1e5',
      '0o17',
      '-.inf',
      '.NaN',
      '=',
      '2026-04-02',
      '12:30',
      '0x_1',
      '+.5',
      'Yes',
      'on',
      '~foo',
      '0',
      '00',
      '-0',
      '9007199254740993',
      '123456789012345',
      '1234567890123456',
      'a\\b',
      '"a\\z"',
      "'a''b' # c",
      '"a" #c',
      '"a"#c',
      'a #b #c',
      'a#b',
      'a  b  ',
      'nul',
      'NULL ',
      'true # x',
      '"\\u00"',
      '"\\ud83d\\ude00"',
      '"\\x7f"',
      '"é"',
      'x: y',
      '-',
      '- a',
      '? x',
      '%x',
      '@x',
    ];
    let accepted = 0;
    for (const v of values) if (agrees(`k: ${v}\n`)) accepted++;
    expect(accepted).toBeGreaterThan(20);
  });

  it('declines what it does not read, and everything the full parser rejects', () => {
    const texts = [
      'a: 1\na: 2\n', // duplicate key
      'a:\n\tb: 1\n', // tab
      'a:\n  b: 1\n c: 2\n', // bad indentation
      'a: "x\ny"\n', // continuation not indented
      'a: b\n  c: d\n', // a key in a folded line
      'a: b\n  # c\n  d\n', // a comment inside a folded plain scalar
      'a: &x 1\nb: *x\n',
      'a: !!str 1\n',
      'a: |\n  text\n',
      'a: [1, 2]\n',
      'a: 1.5\nb: 0x10\nc: 007\nd: .inf\ne: -1\n',
      '---\na: 1\n',
      'a: "unterminated\n',
      "a: 'x \n  y'\n", // trailing space before a fold
      'a: "x" y\n',
      'a: b: c\n',
      '- a\n',
      'null: 1\n',
      '__proto__: 1\n',
      '',
      'a:\n  - b\n  c: 1\n',
    ];
    for (const text of texts) expect(fastYaml(text), JSON.stringify(text)).toBeUndefined();
  });

  it('agrees with the full parser on generated documents, however `yaml` writes them, and on corrupted copies', () => {
    const r = rng(12);
    const accepted = { benign: 0, nasty: 0, corrupted: 0 };
    for (let i = 0; i < 600; i++) {
      const isNasty = i % 2 === 1;
      const text = stringify(randomMap(r, 0, isNasty), WRITERS[i % WRITERS.length]);
      if (agrees(text)) accepted[isNasty ? 'nasty' : 'benign']++;
      for (let j = 0; j < 4; j++) {
        // One edit at a random place: delete, or insert a character that matters to YAML.
        const at = Math.floor(r() * (text.length + 1));
        const ins = [' ', '  ', '\n', '#', ':', '"', "'", '\\', '- ', 'x', ''][Math.floor(r() * 11)]!;
        if (agrees(text.slice(0, at) + ins + text.slice(at + (ins === '' ? 1 : 0)))) accepted.corrupted++;
      }
    }
    // Not vacuous: most state-file-like documents take the fast path, and some of the others and of the edited ones.
    expect(accepted.benign).toBeGreaterThan(200);
    expect(accepted.nasty).toBeGreaterThan(30);
    expect(accepted.corrupted).toBeGreaterThan(300);
  });

  it('a state file the fast reader reads validates to the same wave, and a bad one still gets the positioned message', () => {
    const text = fleetStateFile(3);
    expect(parseStateFile(text, 's.yaml')).toStrictEqual(parseStateFile(text.replace('epic_id: E-1', 'epic_id: "E-1"'), 's.yaml'));
    const bad = parseStateFile(text.replace('status: in_progress', 'status: 7'), 's.yaml');
    expect(fastYaml(text.replace('status: in_progress', 'status: 7'))).toBeDefined(); // it reads; validation fails; the full parser locates
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.location).toMatchObject({ file: 's.yaml', line: 8, column: 15 });
  });
});
