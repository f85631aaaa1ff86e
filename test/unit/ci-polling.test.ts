// CI polling by command shape, not substring (issue 33 item 3): a table of real commands an agent
// runs while it waits on CI, and of commands that only mention one; then the exemption it gives a
// row whose last tool is such a command (the issue's `gh pr checks 42 --watch`, once STALLED at
// 9m00s against a 2m00s window).
import { describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../src/contracts/defaults.js';
import { isCiPolling, simpleCommands } from '../../src/core/ci-polling.js';
import { assess } from '../../src/core/assess.js';
import { DEFAULT_POLICY } from '../../src/core/policy.js';
import { normalizeTask } from '../../src/contracts/state-file.js';
import { mergeObservations as mergeWith } from '../../src/observe/parse/observation-merge.js';
import { CLAUDE_LENS } from '../../src/agents/claude-code/parse/tool-kinds.js';
import { observeRow } from '../../src/observe/parse/observe-row.js';
/** The check's merge of a Claude Code row's evidence (its harness classifies the calls: kinds, the CLI's timeouts). */
const mergeObservations = (parts: Parameters<typeof mergeWith>[0]) => mergeWith(parts, CLAUDE_LENS);

const P = DEFAULTS.exemptions.ci_polling_patterns;

const POLLING: [string, string][] = [
  ['gh pr checks 42 --watch', 'the usual form: the PR number before the flag'],
  ['gh pr checks --watch --fail-fast 42', 'flags first'],
  ['gh pr checks 42 --watch --interval 30', 'with an interval'],
  ['gh pr checks --watch=true 1234', 'a flag with a value'],
  ['gh run watch', "the seed's own example"],
  ['gh run watch 9876543210 --exit-status', 'a run id and a flag'],
  ['gh run watch --interval 10 && gh run view --log-failed', 'first of a chain'],
  ['cd repo && gh pr checks 7 --watch 2>&1 | tail -20', 'after a cd, piped'],
  ['/usr/local/bin/gh pr checks 42 --watch', 'the program by its path'],
  ['GH_PAGER=cat timeout 900 gh pr checks 42 --watch', 'an env assignment and timeout'],
  ['glab ci status --live', 'GitLab'],
  ['glab ci status -l --branch main', 'GitLab, short flag'],
  ['watch -n 30 gh pr checks 42', 'repeated by watch'],
  ["watch -n 30 'gh pr checks 42'", 'repeated by watch, quoted'],
  ['watch --interval 60 glab ci status', 'watch, long option'],
  ['while ! gh pr checks 42; do sleep 30; done', 'a while loop'],
  ['until gh pr checks 42 --required; do sleep 60; done', 'an until loop'],
  ["bash -c 'gh run watch 123'", 'bash -c'],
  ["bash -lc 'gh pr checks 42 --watch'", 'bash -lc: how Codex runs every exec_command'],
  ["/bin/bash -l -c 'cd repo && gh run watch 123'", 'bash -l -c, by its path'],
];

const NOT_POLLING: [string, string][] = [
  ['gh pr checks 42', 'one look, no --watch'],
  ['gh pr view 42 --json statusCheckRollup', 'another gh command'],
  ['gh run list --limit 5', 'a list'],
  ['glab ci status', 'one look at GitLab'],
  ['echo "gh run watch"', 'text that mentions it'],
  ["grep -rn 'gh pr checks --watch' docs/", 'a search for it'],
  ['git commit -m "wait with gh pr checks --watch"', 'a commit message'],
  ['watch -n 5 ls', 'watch of something else'],
  ['npm test -- --watch', 'another --watch'],
  ['while true; do npm test; sleep 5; done', 'a loop of something else'],
  ['# gh run watch', 'a comment'],
  ["bash -lc 'echo gh run watch'", 'bash -lc of something that mentions it'],
];

describe('isCiPolling', () => {
  it.each(POLLING)('%s polls CI (%s)', (command) => expect(isCiPolling(command, P)).toBe(true));
  it.each(NOT_POLLING)('%s does not (%s)', (command) => expect(isCiPolling(command, P)).toBe(false));

  it('splits a command line into simple commands, quotes removed', () => {
    expect(simpleCommands(`a 'b c' "d \\"e\\"" && f | g; h\ni`)).toEqual([['a', 'b c', 'd "e"'], ['f'], ['g'], ['h'], ['i']]);
  });

  it('a configured shape is a shape too', () => {
    expect(isCiPolling('buildkite-agent pipeline wait --build 42', ['buildkite-agent pipeline wait'])).toBe(true);
    expect(isCiPolling('echo buildkite-agent pipeline wait', ['buildkite-agent pipeline wait'])).toBe(false);
  });
});

describe('the ci_polling exemption on a row', () => {
  const T0 = Date.parse('2026-04-02T10:00:00Z');
  const judge = (command: string) => {
    const task = normalizeTask(
      {
        task_id: 't1',
        ticket_id: 'P-1',
        status: 'in_progress',
        last_activity_ts: new Date(T0).toISOString(),
        last_tool_name: 'Bash',
        last_tool_command: command,
      },
      undefined,
    );
    return assess(task, mergeObservations([observeRow(task)]), DEFAULT_POLICY, T0 + 540_000);
  };
  it.each(['gh pr checks 42 --watch', 'gh pr checks --watch --fail-fast 42', 'watch -n 30 gh pr checks 42', 'glab ci status --live'])(
    '%s at 9m00s is healthy in its 10-minute window',
    (command) => {
      const v = judge(command);
      expect(v.kind).toBe('healthy');
      expect(v.exemptions).toContain('ci_polling');
    },
  );
  it('gh pr checks 42 (one look) at 9m00s is stalled', () => expect(judge('gh pr checks 42').kind).toBe('stalled'));
});
