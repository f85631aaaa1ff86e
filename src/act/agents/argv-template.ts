// argv templates from config (agents.cancel_argv, agents.redispatch_argv): placeholders such as
// {prompt_file} are replaced inside each element; nothing is ever passed through a shell. Pure.
import { InputError } from '../../contracts/errors.js';
import type { Locate } from '../../contracts/parse-yaml.js';
import type { CancelRequest, RedispatchRequest } from './adapter.js';

export const PLACEHOLDERS = [
  'prompt',
  'prompt_file',
  'ticket',
  'attempt',
  'checkpoint',
  'task_id',
  'recovery_task_id',
  'epic',
  'key',
  'pid',
  'agent_id',
  'agent_name',
  'team',
  'session_id',
  'cwd',
] as const;
export type Placeholder = (typeof PLACEHOLDERS)[number];
export type PlaceholderValues = Partial<Record<Placeholder, string>>;

const PATTERN = /\{([A-Za-z_]+)\}/g;
const isPlaceholder = (name: string): name is Placeholder => (PLACEHOLDERS as readonly string[]).includes(name);

/** An InputError naming the config key and the unknown placeholder, or undefined when the template is fine. */
export function validateArgvTemplate(argv: readonly string[], configKey: string, locate?: Locate): InputError | undefined {
  for (const [i, el] of argv.entries()) {
    for (const m of el.matchAll(PATTERN)) {
      if (!isPlaceholder(m[1]!)) {
        const what = `unknown placeholder {${m[1]}}. Expected one of ${PLACEHOLDERS.map((p) => `{${p}}`).join(' ')}, got ${JSON.stringify(el)}.`;
        return new InputError('bad_config', locate ? what : `${configKey}[${i}]: ${what}`, {
          location: locate?.([...configKey.split('.'), i]),
          hint: 'Fix the placeholder name; each argv element is passed as is, without a shell.',
        });
      }
    }
  }
  return undefined;
}

/** Replace every placeholder; placeholders without a value are listed in `missing` instead. */
export function expandArgv(argv: readonly string[], values: PlaceholderValues): { ok: true; argv: string[] } | { ok: false; missing: Placeholder[] } {
  const missing = new Set<Placeholder>();
  const out = argv.map((el) =>
    el.replace(PATTERN, (whole, name: string) => {
      if (!isPlaceholder(name)) return whole;
      const v = values[name];
      if (v === undefined) missing.add(name);
      return v ?? whole;
    }),
  );
  return missing.size > 0 ? { ok: false, missing: [...missing] } : { ok: true, argv: out };
}

/** The placeholder values of one request; redispatch-only values are set for a redispatch. */
export function placeholderValues(req: CancelRequest | RedispatchRequest, promptFile?: string): PlaceholderValues {
  const t = req.task;
  const v: PlaceholderValues = {
    ticket: t.ticketId,
    task_id: t.taskId,
    epic: req.epicId,
    key: req.key,
    pid: t.pid === undefined ? undefined : String(t.pid),
    agent_id: t.agentId,
    agent_name: t.agentName,
    team: t.teamName,
    session_id: t.sessionId,
  };
  if ('prompt' in req) {
    Object.assign(v, {
      prompt: req.prompt,
      prompt_file: promptFile,
      attempt: String(req.attempt),
      checkpoint: req.checkpointPath,
      recovery_task_id: req.recoveryTaskId,
      cwd: req.cwd,
    });
  }
  return v;
}
