// `replay --score` and `npm run bench`: issue 19's table from a harness's replay score (agents/harness.ts), as text. Pure.
import { msToIso } from '../contracts/time.js';
import type { WindowScore } from './replay-types.js';

const hours = (h: number) => (h < 0.1 ? `${(h * 60).toFixed(1)} min` : `${h.toFixed(2)} h`);
const rate = (n: number, h: number) => (h > 0 ? (n / h).toFixed(2) : '–');
const base = (file: string) => file.split(/[/\\]/).at(-1) ?? file;

/** The figures of one window, one per line, then every false stall and missed crash by name. */
export function renderScore(s: WindowScore): string[] {
  const notHuman = s.falseStalls.filter((f) => !f.isHumanWait);
  const human = s.falseStalls.length - notHuman.length;
  const notAtWork = Object.entries(s.crashes.notAtWork)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');
  const g = s.giveUps;
  const lines = [
    `at ${s.windowSeconds} s: ${s.sessions} transcript(s), ${hours(s.agentHours)} of records, ${hours(s.activeHours)} active`,
    `  false stalls while the agent was provably working, human waits excluded  ${notHuman.length} (${rate(notHuman.length, s.activeHours)} per active agent-hour)`,
    `  false stalls during permission / question waits, no hook                 ${human}`,
    `  finished turns called stalled                                            ${s.finishedCalledStalled.length} of ${s.finishedTurns}`,
    `  simulated crashes flagged within window + 1 s                            ${s.crashes.flagged} of ${s.crashes.simulated}${s.crashes.reportedUnobservable ? ` (${s.crashes.reportedUnobservable} of the rest reported as waiting on a child nothing can be seen of, not acted on)` : ''}${notAtWork ? ` (cuts with the agent not at work, no crash to flag: ${notAtWork})` : ''}`,
    `  API give-ups flagged at once; cleared when the agent resumed            ${g.flaggedAtOnce} of ${g.seen}; ${g.cleared} of ${g.resumed}`,
    `  stalls a human's prompt or Esc ended, the turn not over: ${s.humanSteppedIn}; stalls at the end of a file, the turn not over: ${s.atEnd}`,
  ];
  for (const f of s.falseStalls)
    lines.push(
      `    false stall${f.isHumanWait ? ' (human wait)' : ''}: ${base(f.file)} at ${msToIso(f.atMs)}, went on ${((f.resumedAtMs - f.atMs) / 1000).toFixed(1)} s later: ${f.reason}`,
    );
  for (const f of s.finishedCalledStalled) lines.push(`    finished turn called stalled: ${base(f.file)} at ${msToIso(f.atMs)}`);
  for (const m of s.crashes.missed) lines.push(`    crash missed: ${base(m.file)} cut at ${msToIso(m.cutMs)}: ${m.reason}`);
  for (const w of s.crashes.widened ?? [])
    lines.push(`    crash judged past the base window: ${base(w.file)} cut at ${msToIso(w.cutMs)}: window ${w.windowSeconds} s (${w.exemptions.join(', ')})`);
  for (const n of g.notCleared) lines.push(`    give-up not cleared by the resume: ${base(n.file)} at ${msToIso(n.atMs)}`);
  return lines;
}
