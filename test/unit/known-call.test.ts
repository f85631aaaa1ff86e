// knownCall copies a tool call field by field (a spread gave most copies a hidden class of their
// own on Node 20): a field added to ToolCall must be added there too, or it is lost. Required<>
// makes this test name every field, so a new one fails to compile here until it is copied.
import { describe, expect, it } from 'vitest';
import { knownCall, type ToolCall } from '../../src/observe/parse/observation.js';

describe('knownCall', () => {
  it('keeps every field of the call and says its openness is known', () => {
    const child: ToolCall = { name: 'Read', isOpen: true };
    const every: Required<ToolCall> = {
      name: 'Bash',
      kind: 'shell',
      defaultTimeoutMs: 120_000,
      isStatusPoll: false,
      inputSummary: 'npm test',
      command: 'npm test',
      timeoutMs: 600_000,
      startedAtMs: 1_775_000_000_000,
      isOpen: true,
      toolUseId: 'toolu_1',
      error: 'exit 1',
      isBackground: true,
      childAgentId: 'a1',
      isChildSeen: true,
      childCall: child,
      killsTaskId: 'b1',
      isOpenKnown: false,
    };
    expect(knownCall(every)).toEqual({ ...every, isOpenKnown: true });
    expect(knownCall({ name: 'Read', isOpen: false })).toEqual({ name: 'Read', isOpen: false, isOpenKnown: true });
  });
});
