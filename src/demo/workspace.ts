// The demo's temporary directory: it is the watchdog's state dir, and also holds the agent script,
// the agents' plans, a fake repo dir and Claude Code's projects dir for the transcripts.
import { randomBytes } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { StatePaths } from '../files/paths.js';
import { AGENT_SCRIPT } from './agent-script.js';
import { DEMO_EPIC_ID, REPLACEMENT_TASK_ID, STALLED_TASK_ID, demoConfigYaml, replacementSteps } from './scenario.js';
import type { AgentPlan } from './timeline.js';

export interface Workspace {
  root: string;
  paths: StatePaths;
  repoDir: string;
  scriptPath: string;
  plansDir: string;
  projectsDir: string;
  sessionId: string;
  /** The replacement writes its transcript to stdout: the process adapter's log of it. */
  replacementLog: string;
}

/** Create the temp dir with the script, the replacement's plan and watchdog.config.yaml. */
export async function createWorkspace(opts: { tmpDir?: string; nodePath: string; sessionId: string }): Promise<Workspace> {
  const root = await fs.mkdtemp(path.join(opts.tmpDir ?? os.tmpdir(), 'dispatch-watchdog-demo-'));
  const paths = new StatePaths(root);
  const repoDir = path.join(root, 'repo');
  const plansDir = path.join(root, 'demo-agents');
  const projectsDir = path.join(root, 'claude', 'projects');
  await Promise.all([repoDir, plansDir, projectsDir, paths.epicDir(DEMO_EPIC_ID)].map((d) => fs.mkdir(d, { recursive: true })));
  const scriptPath = path.join(plansDir, 'agent.mjs');
  await fs.writeFile(scriptPath, AGENT_SCRIPT);
  const plan: AgentPlan = {
    out: '-',
    agentId: 'a' + randomBytes(8).toString('hex'),
    sessionId: opts.sessionId,
    cwd: repoDir,
    gitBranch: STALLED_TASK_ID.toLowerCase(),
    steps: replacementSteps(repoDir),
  };
  const replacementPlan = path.join(plansDir, `${REPLACEMENT_TASK_ID}.json`);
  await fs.writeFile(replacementPlan, JSON.stringify(plan, null, 2) + '\n');
  await fs.writeFile(paths.configFile(), demoConfigYaml(opts.nodePath, scriptPath, replacementPlan));
  const replacementLog = path.join(paths.agentsDir(DEMO_EPIC_ID), `${REPLACEMENT_TASK_ID}.log`);
  return { root, paths, repoDir, scriptPath, plansDir, projectsDir, sessionId: opts.sessionId, replacementLog };
}

/** The files worth opening after the run, as [path relative to the root, what it is]; only those that exist. */
export async function interestingFiles(ws: Workspace): Promise<[string, string][]> {
  const { paths } = ws;
  const rel = (p: string) => path.relative(ws.root, p);
  const logs = await fs.readdir(paths.dispatchLogDir()).catch(() => [] as string[]);
  const list: [string, string][] = [
    [rel(paths.configFile()), "the demo's config: 4 s window, 1 s checks, process adapter, redispatch_argv"],
    [rel(paths.stateFile(DEMO_EPIC_ID)), "the wave as the demo's orchestrator role wrote it (the watchdog only reads it)"],
    [rel(paths.watchdogJson(DEMO_EPIC_ID)), "the watchdog's last check"],
    ...logs
      .filter((n) => n.endsWith('.ndjson'))
      .map((n): [string, string] => [rel(path.join(paths.dispatchLogDir(), n)), 'every event the watchdog logged, one JSON line each']),
    [rel(paths.checkpoint(STALLED_TASK_ID, 1)), 'the recovery checkpoint: what was done, what remains'],
    [rel(path.join(paths.agentsDir(DEMO_EPIC_ID), `${REPLACEMENT_TASK_ID}.prompt.md`)), 'the narrow-scope prompt the replacement was given'],
    [rel(ws.replacementLog), "the replacement's transcript (its stdout)"],
    [path.relative(ws.root, ws.projectsDir) + '/', "the three agents' Claude Code transcripts"],
    ['demo-agents/', 'the agent script and the plans it replays'],
  ];
  return list.filter(([rel]) => existsSync(path.join(ws.root, rel)));
}
