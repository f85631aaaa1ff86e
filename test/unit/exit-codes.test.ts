import { describe, expect, it } from 'vitest';
import { ActionError, InputError, InternalError } from '../../src/contracts/errors.js';
import { exitCodeFor } from '../../src/watch.js';

const run = (e: unknown) => {
  const err: string[] = [];
  const code = exitCodeFor(e, { out: () => undefined, err: (t) => void err.push(t) });
  return { code, text: err.join('') };
};

describe('exitCodeFor', () => {
  it('bad input → 2, with the location, message and fix, no stack', () => {
    const r = run(new InputError('wrong_type', 'expected number, got "x".', { location: { file: 'state.yaml', line: 3, column: 9, path: 'wave_tasks[0].pid' }, hint: 'Fix it.' }));
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
