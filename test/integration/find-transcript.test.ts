// TranscriptFinder over real dirs: a project dir that appears after the first search (the first
// session in a fresh worktree) is found on the next search, within the listing's TTL and after a
// miss has been cached (issue 17 item 2: it was invisible for up to ~90 s).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TranscriptFinder } from '../../src/agents/claude-code/read/find-transcript.js';
import { tempDir } from '../helpers/temp-dir.js';

function setup() {
  const projects = path.join(tempDir(), 'projects');
  mkdirSync(path.join(projects, '-old-project'), { recursive: true });
  const make = (rel: string) => {
    const file = path.join(projects, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, '{}\n');
    return file;
  };
  return { projects, make, finder: new TranscriptFinder(projects) };
}

describe('TranscriptFinder and new project dirs', () => {
  it('finds a session in a project dir made after the listing was cached, on the next search', async () => {
    const s = setup();
    const other = s.make('-old-project/other.jsonl');
    expect(await s.finder.find({ sessionId: 'other' }, 0)).toMatchObject({ ok: true, location: { path: other } });
    expect(await s.finder.find({ sessionId: 'sess-new' }, 1_000)).toMatchObject({ ok: false });
    const file = s.make('-new-worktree/sess-new.jsonl');
    expect(await s.finder.find({ sessionId: 'sess-new' }, 2_000)).toMatchObject({ ok: true, location: { path: file } });
  });

  it('finds a subagent (agent_id alone) in a new project dir after its miss was cached', async () => {
    const s = setup();
    for (const t of [0, 10_000, 20_000, 31_000]) expect(await s.finder.find({ agentId: 'a1' }, t)).toMatchObject({ ok: false });
    // 31 s of misses: the miss is now cached for 30 s, unless the projects dir changed.
    const file = s.make('-new-worktree/sess-9/subagents/agent-a1.jsonl');
    expect(await s.finder.find({ agentId: 'a1' }, 32_000)).toMatchObject({ ok: true, location: { path: file } });
  });

  it('a cached miss costs one stat of the projects dir while nothing changed', async () => {
    const s = setup();
    for (const t of [0, 31_000]) await s.finder.find({ agentId: 'a1' }, t);
    const before = s.finder.statCalls;
    expect(await s.finder.find({ agentId: 'a1' }, 40_000)).toMatchObject({ ok: false });
    expect(s.finder.statCalls - before).toBe(1);
  });
});
