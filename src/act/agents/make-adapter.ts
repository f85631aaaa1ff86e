// Build the agent-control adapter named by `agents.adapter`, after checking its config.
import type { AdapterName, Strategy } from '../../contracts/vocabulary.js';
import { combineProblems, InputError } from '../../contracts/errors.js';
import type { AdapterDeps, AgentAdapter, AgentsConfig } from './adapter.js';
import type { Locate } from '../../contracts/parse-yaml.js';
import { validateArgvTemplate } from './argv-template.js';
import { createClaudeTeamAdapter, type ClaudeTeamOptions } from '../../agents/claude-code/act/claude-team.js';
import { createCommandAdapter } from './command.js';
import { createMailboxAdapter } from './mailbox.js';
import { createProcessAdapter, type ProcessAdapterOptions } from './process.js';

/** Options of createAdapter beyond the config file. */
export interface CreateAdapterOptions {
  /** The configured strategy: with `redispatch`, adapters that launch from argv need `agents.redispatch_argv`. */
  strategy?: Strategy;
  /** Where each config field is, so problems carry file:line (set when the config came from a file). */
  locate?: Locate;
  /** Test knobs: short lock waits, a start-time tolerance. */
  claudeTeam?: ClaudeTeamOptions;
  process?: ProcessAdapterOptions;
}

/** Every problem with the `agents` config for this adapter and strategy (empty when it can run); `locate` adds file:line. */
export function validateAgentsConfig(name: AdapterName, agents: AgentsConfig = {}, strategy?: Strategy, locate?: Locate): InputError[] {
  const errors: InputError[] = [];
  for (const key of ['cancel_argv', 'redispatch_argv', 'resume_argv'] as const) {
    const argv = agents[key];
    const err = argv && validateArgvTemplate(argv, `agents.${key}`, locate);
    if (err) errors.push(err);
  }
  const needs = (key: 'cancel_argv' | 'redispatch_argv', why: string) => {
    if (!agents[key]) {
      const what = `the ${name} adapter needs it ${why}, got nothing.`;
      errors.push(
        new InputError('bad_config', locate ? what : `agents.${key}: ${what}`, {
          location: locate?.(['agents', key]),
          hint: `Add agents.${key} to watchdog.config.yaml, e.g. ["my-tool", "${key === 'cancel_argv' ? 'stop' : 'start'}", "{task_id}"], or use agents.adapter: mailbox.`,
        }),
      );
    }
  };
  if (name === 'command' && (strategy === 'cancel' || strategy === 'redispatch')) needs('cancel_argv', 'to stop a stalled agent');
  if ((name === 'command' || name === 'process') && strategy === 'redispatch') needs('redispatch_argv', 'to launch a replacement');
  return errors;
}

/** The adapter named by `agents.adapter` (default mailbox); throws one InputError listing every config problem. */
export function createAdapter(name: AdapterName, agents: AgentsConfig | undefined, deps: AdapterDeps, opts: CreateAdapterOptions = {}): AgentAdapter {
  const problem = combineProblems(validateAgentsConfig(name, agents, opts.strategy, opts.locate));
  if (problem) throw problem;
  const cfg = agents ?? {};
  switch (name) {
    case 'mailbox':
      return createMailboxAdapter(deps);
    case 'claude-team':
      return createClaudeTeamAdapter(cfg, deps, opts.claudeTeam);
    case 'process':
      return createProcessAdapter(cfg, deps, opts.process);
    case 'command':
      return createCommandAdapter(cfg, deps);
  }
}
