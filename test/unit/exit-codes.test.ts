import type { Command } from 'commander';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildProgram, main } from '../../src/cli.js';
import { ActionError, InputError, InternalError } from '../../src/contracts/errors.js';
import { EXIT, EXIT_CODES, exitCodeFor } from '../../src/contracts/exit-codes.js';
import { NEXT_EXIT, NEXT_REASONS } from '../../src/contracts/next.js';

const run = (e: unknown) => {
  const err: string[] = [];
  const code = exitCodeFor(e, { err: (t) => void err.push(t) });
  return { code, text: err.join('') };
};

describe('exitCodeFor', () => {
  it('bad input → 2, with the location, message and fix, no stack', () => {
    const r = run(
      new InputError('wrong_type', 'expected number, got "x".', {
        location: { file: 'state.yaml', line: 3, column: 9, path: 'wave_tasks[0].pid' },
        hint: 'Fix it.',
      }),
    );
    expect(r).toEqual({ code: 2, text: 'dispatch-watchdog: state.yaml:3:9 wave_tasks[0].pid: expected number, got "x". Fix it.\n' });
  });

  it('the world refused → 1, with the message and fix, no stack', () => {
    const r = run(new ActionError('action_refused', 'friction/x.md: exists but is not ours.', { hint: 'Move it aside.' }));
    expect(r).toEqual({ code: 1, text: 'dispatch-watchdog: friction/x.md: exists but is not ours. Move it aside.\n' });
  });

  it.each([new InternalError('invariant broken'), new TypeError('x is undefined')])('our bug (%s) → 1, with the stack and a request to report it', (e) => {
    const r = run(e);
    expect(r.code).toBe(1);
    expect(r.text).toContain('dispatch-watchdog: internal error: ');
    expect(r.text).toContain('    at ');
    expect(r.text).toContain('please report it');
  });
});

// Every exit code the help, README, docs/ and skills/ mention is checked against the one table
// (src/contracts/exit-codes.ts), and so is what a mention says the code means, where a rule below
// can tell: a held lock is exit 2, an orphan 3, each `next` reason its NEXT_EXIT code, …
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CODES = new Set<number>(Object.values(EXIT));
const LOCK_CODE = exitCodeFor(new InputError('lock_held', 'another dispatch-watchdog is already watching epic E.'), { err: () => {} });

/** One statement "exit <code>: <text>" found somewhere. */
interface Claim {
  where: string;
  code: number;
  text: string;
}

/** What a claim's text says the code is, where a rule can tell (the first words of the text). */
function expectedCode(text: string): number | undefined {
  const t = text.toLowerCase();
  const head = t.split(/\s+/).slice(0, 6).join(' ');
  if (/\block\b|holder|holds the/.test(t)) return LOCK_CODE;
  const reason = NEXT_REASONS.find((r) => t.includes(`\`${r}\``));
  if (reason) return NEXT_EXIT[reason];
  if (/orphans were found/.test(head)) return EXIT.stall;
  if (/^(\S+ ){0,2}(a )?stall (was )?found|^(\S+ ){0,3}a stall was found/.test(head)) return EXIT.stall;
  if (/^no stall\b/.test(head)) return EXIT.ok;
  if (/^bad input\b/.test(head)) return EXIT.input;
  if (/^(a ticket was |an )?escalat/.test(head)) return EXIT.escalation;
  if (/^(new )?(cancel\/redispatch )?requests\b/.test(head)) return EXIT.requests;
  if (/^a request (went )?unanswered|^a request passed its answer_by/.test(head)) return EXIT.unanswered;
  if (/^(the )?wave (is )?complete/.test(head)) return EXIT.ok;
  return undefined;
}

/** "exit 10 requests, 11 a request went unanswered, 0 …", "exits 2 with …", "exit with 0 / 3 / 2" in prose. */
function proseClaims(where: string, text: string): Claim[] {
  const claims: Claim[] = [];
  // A paragraph as one line (a statement may wrap); a table row, an empty line stay lines of their own.
  const lines = text.split('\n').map((l) => l.trim());
  const prose = lines.reduce((acc, l, i) => acc + (i === 0 ? '' : l === '' || l.startsWith('|') || lines[i - 1]!.startsWith('|') ? '\n' : ' ') + l, '');
  for (const m of prose.matchAll(/\bexit(?:s|ed)?(?: code)?(?: with)?:?\s+(\d{1,3})\b/gi)) {
    let rest = prose.slice(m.index + m[0].length, m.index + m[0].length + 300);
    let code = Number(m[1]);
    for (;;) {
      // The text about one code ends at the next code of the list (", 11 …", " / 3") or the sentence.
      const next = /^([^.;,/|\n]*?)(?:,|\s\/)\s*(\d{1,3})\b/.exec(rest);
      // In --help, a gap of 3+ spaces is the next column; in a table, a | the next cell.
      const own = (next ? next[1]! : (/^[^.;|\n]*/.exec(rest)?.[0] ?? '')).split(/\s{3,}/)[0]!;
      claims.push({ where, code, text: own.trim().replace(/^[:(]\s*/, '') });
      if (!next) break;
      code = Number(next[2]);
      rest = rest.slice(next[0].length);
    }
  }
  return claims;
}

/** Rows of markdown tables whose first column is headed "exit". */
function tableClaims(where: string, text: string): Claim[] {
  const claims: Claim[] = [];
  let isExitTable = false;
  for (const line of text.split('\n')) {
    if (!line.startsWith('|')) {
      isExitTable = false;
      continue;
    }
    const cells = line
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((c) => c.trim());
    if (/^exit( code)?$/i.test(cells[0] ?? '')) isExitTable = true;
    else if (isExitTable && /^\d+$/.test(cells[0] ?? '')) claims.push({ where, code: Number(cells[0]), text: cells.slice(1).filter(Boolean).join(' ') });
  }
  return claims;
}

/** Every command's --help: the rows of its "Exit codes:" section, and what its other lines say. */
async function helpClaims(): Promise<Claim[]> {
  const program = buildProgram({ argv: [], env: {}, cwd: '/', output: { out: () => {}, err: () => {} }, watchDeps: {} as never }, () => {});
  const all = (cmd: Command, prefix: string[]): string[][] => cmd.commands.flatMap((c) => [[...prefix, c.name()], ...all(c, [...prefix, c.name()])]);
  const claims: Claim[] = [];
  for (const words of [[], ...all(program, [])]) {
    let help = '';
    await main({
      argv: [...words, '--help'],
      env: {},
      cwd: '/',
      output: { out: (t) => void (help += t), err: () => {} },
      watchDeps: { clock: { nowMs: () => 0 } as never, signal: new AbortController().signal, pid: 1 },
    });
    const where = `dispatch-watchdog ${words.join(' ')} --help`.replace('  ', ' ');
    const [before, section = ''] = help.split('\nExit codes:\n');
    const rows = [...section.matchAll(/^ {2}(\d+) {2}(.*)$/gm)].map((m) => ({ where, code: Number(m[1]), text: m[2]! }));
    expect(rows.length, `${where} lists its exit codes`).toBeGreaterThan(0);
    expect(new Set(rows.map((r) => r.code)).size, `${where}: one row per code`).toBe(rows.length);
    claims.push(...rows, ...proseClaims(where, before!));
  }
  return claims;
}

function docClaims(): Claim[] {
  const files = ['README.md', ...readdirSync(path.join(root, 'docs')).map((f) => `docs/${f}`), 'skills/dispatch-watchdog/SKILL.md'].filter((f) =>
    f.endsWith('.md'),
  );
  return files.flatMap((f) => {
    const text = readFileSync(path.join(root, f), 'utf8');
    return [...proseClaims(f, text), ...tableClaims(f, text)];
  });
}

describe('documented exit codes', () => {
  it('the table: names and codes are unique, and next reasons map into it', () => {
    expect(CODES.size).toBe(Object.keys(EXIT_CODES).length);
    for (const r of NEXT_REASONS) expect(CODES.has(NEXT_EXIT[r])).toBe(true);
  });

  it('every exit code in help, README, docs and the skill is in the table and means what the table says', async () => {
    const claims = [...(await helpClaims()), ...docClaims()];
    // The extraction itself works: the held lock of the main command's help, and next's table.
    expect(claims).toContainEqual(expect.objectContaining({ where: 'dispatch-watchdog --help', code: LOCK_CODE }));
    expect(claims.filter((c) => c.where === 'docs/orchestrator.md' && NEXT_REASONS.some((r) => c.text.includes(`\`${r}\``)))).toHaveLength(NEXT_REASONS.length);
    const wrong = claims.filter((c) => !CODES.has(c.code) || (expectedCode(c.text) ?? c.code) !== c.code);
    expect(wrong.map((c) => `${c.where}: exit ${c.code} "${c.text}" (expected ${expectedCode(c.text) ?? `one of ${[...CODES].join(', ')}`})`)).toEqual([]);
  });
});
