// The one line of answer instructions in each request file must tell the truth for the file it is
// in: the stop step of a redispatch or an escalation key is no request of its own.
import { describe, expect, it } from 'vitest';
import { howToAnswer } from '../../src/contracts/request.js';

describe('howToAnswer', () => {
  it('a plain cancel: a terminal row or ack answers it', () => {
    const text = howToAnswer('cancel', { key: 'E:t1:cancel', task_id: 't1' });
    expect(text).toContain("set row t1's status to a terminal one");
    expect(text).toContain('dispatch-watchdog ack E:t1:cancel');
  });

  it("a redispatch key's stop step points at its .redispatch.json, never at a terminal row alone", () => {
    const text = howToAnswer('cancel', { key: 'E:t2:redispatch', task_id: 't2' });
    expect(text).toContain('act on E__t2__redispatch.redispatch.json instead');
    expect(text).toContain('does not answer it');
    expect(text).not.toContain('dispatch-watchdog ack');
  });

  it("an escalation key's stop step says block and do not relaunch, never ack (ack refuses escalate keys)", () => {
    const text = howToAnswer('cancel', { key: 'E:t2-r2:escalate', task_id: 't2-r2' });
    expect(text).toContain('E__t2-r2__escalate.escalation.json');
    expect(text).toContain("set the ticket's in-flight rows to blocked");
    expect(text).not.toContain('dispatch-watchdog ack');
  });

  it('a redispatch names the replacement row, the reused row and ack', () => {
    const text = howToAnswer('redispatch', { key: 'E:t2:redispatch', task_id: 't2', recovery_task_id: 't2-r1', redispatch_attempt: 1 });
    expect(text).toContain('add a row with task_id t2-r1');
    expect(text).toContain('dispatch-watchdog ack E:t2:redispatch');
  });
});
