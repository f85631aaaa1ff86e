// argv placeholders and key file names. Pure.
import { describe, expect, it } from 'vitest';
import { expandArgv, validateArgvTemplate } from '../../src/act/agents/argv-template.js';
import { keyToFileName } from '../../src/act/agents/step-file.js';

describe('expandArgv', () => {
  it.each<[string[], Record<string, string>, string[]]>([
    [['claude', '-p', '{prompt}'], { prompt: 'do "x"; rm -rf /' }, ['claude', '-p', 'do "x"; rm -rf /']],
    [['run', '--file={prompt_file}', '{ticket}-{attempt}'], { prompt_file: '/p.md', ticket: 'T-1', attempt: '2' }, ['run', '--file=/p.md', 'T-1-2']],
    [['echo', '{"json": 1}'], {}, ['echo', '{"json": 1}']],
  ])('%j', (argv, values, want) => {
    expect(expandArgv(argv, values)).toEqual({ ok: true, argv: want });
  });

  it('lists placeholders without a value', () => {
    expect(expandArgv(['kill', '{pid}', '{agent_id}', '{pid}'], {})).toEqual({ ok: false, missing: ['pid', 'agent_id'] });
  });

  it('accepts every documented placeholder', () => {
    expect(validateArgvTemplate(['x', '{prompt_file}', '{recovery_task_id}', '{team}'], 'agents.cancel_argv')).toBeUndefined();
  });
});

describe('keyToFileName', () => {
  it.each([
    ['PROJ-1000:t1:cancel', 'PROJ-1000__t1__cancel'],
    ['PROJ-1000:worker@team:redispatch', 'PROJ-1000__worker@team__redispatch'],
  ])('%s → %s', (key, name) => {
    expect(keyToFileName(key)).toBe(name);
  });

  it('keeps long keys unique and within file-name limits', () => {
    const a = keyToFileName(`${'E'.repeat(128)}:${'t'.repeat(127)}a:redispatch`);
    const b = keyToFileName(`${'E'.repeat(128)}:${'t'.repeat(127)}b:redispatch`);
    expect(a).toHaveLength(200);
    expect(a).not.toBe(b);
  });

  it.each(['../x:t1:cancel', 'E:a/b:cancel', ''])('rejects %j', (key) => {
    expect(() => keyToFileName(key)).toThrow(/cannot name a file/);
  });
});
