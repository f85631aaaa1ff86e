// Which rows are Codex's: `agent: codex` on the row (DESIGN §15; default claude-code). Pure.
import type { Task } from '../../contracts/state-file.js';

/** The row names Codex as its agent CLI (the normalized field, or the row as written). */
export const isCodexRow = (task: Pick<Task, 'agent' | 'raw'>): boolean => task.agent === 'codex' || task.raw?.agent === 'codex';
