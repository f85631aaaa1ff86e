// A demo agent's plan: when to write which Claude-Code-format record, built here and replayed in
// real time by the generated agent script (agent-script.ts). Pure: no I/O, no clock.

/** One record to write, `atMs` after the agent process starts. */
export type PlanStep =
  | { atMs: number; kind: 'prompt'; text: string }
  | { atMs: number; kind: 'text'; text: string }
  | { atMs: number; kind: 'call'; id: string; name: string; input: Record<string, unknown> }
  | { atMs: number; kind: 'result'; id: string; content: string; toolUseResult?: Record<string, unknown> }
  /** Write nothing more, but stay alive (a stalled agent). */
  | { atMs: number; kind: 'hang' }
  | { atMs: number; kind: 'exit'; code: number };

/** What the agent script reads (JSON): who it is, where it writes, and its steps. */
export interface AgentPlan {
  /** Transcript file, or "-" for stdout (a replacement launched by the process adapter writes there). */
  out: string;
  agentId: string;
  sessionId: string;
  cwd: string;
  gitBranch: string;
  /** The first `prompt` step's text is replaced by this file's content when the script gets a prompt file. */
  steps: PlanStep[];
}

/** A tool call as the timeline writes it: the call, then its result `takesMs` later. */
export interface ToolSpec {
  name: string;
  input: Record<string, unknown>;
  result: string;
  toolUseResult?: Record<string, unknown>;
  /** @defaultValue 150 */
  takesMs?: number;
}

/** Builds steps on a cursor that moves forward in ms. */
export class Timeline {
  readonly steps: PlanStep[] = [];
  private atMs = 0;
  private calls = 0;

  constructor(private readonly idPrefix: string) {}

  /** The cursor, in ms after the agent starts. */
  get nowMs(): number {
    return this.atMs;
  }

  prompt(text: string, gapMs = 150): this {
    this.steps.push({ atMs: this.atMs, kind: 'prompt', text });
    this.atMs += gapMs;
    return this;
  }

  say(text: string, gapMs = 250): this {
    this.steps.push({ atMs: this.atMs, kind: 'text', text });
    this.atMs += gapMs;
    return this;
  }

  /** A call now and its result `takesMs` later; the cursor moves on by `gapMs` (at least past the result). */
  tool(spec: ToolSpec, gapMs = 500): this {
    const id = `toolu_01${this.idPrefix}${String(++this.calls).padStart(4, '0')}`;
    const takes = spec.takesMs ?? 150;
    this.steps.push({ atMs: this.atMs, kind: 'call', id, name: spec.name, input: spec.input });
    this.steps.push({ atMs: this.atMs + takes, kind: 'result', id, content: spec.result, toolUseResult: spec.toolUseResult });
    this.atMs += Math.max(gapMs, takes + 50);
    return this;
  }

  hang(): this {
    this.steps.push({ atMs: this.atMs, kind: 'hang' });
    return this;
  }

  exit(code = 0): this {
    this.steps.push({ atMs: this.atMs, kind: 'exit', code });
    return this;
  }
}
