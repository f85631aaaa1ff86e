// Every file the watchdog writes for someone else to read matches its schema in src/contracts
// (emitted into schemas/): the real writer, a real temp dir, the file read back.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createMailboxAdapter, requestFile } from '../../src/act/agents/mailbox.js';
import { RequestSchema } from '../../src/contracts/request.js';
import { realClock } from '../../src/deps.js';
import { cancelRequest, redispatchRequest } from '../helpers/agent-requests.js';
import { tempDir } from '../helpers/temp-dir.js';

const readJson = (file: string): unknown => JSON.parse(readFileSync(file, 'utf8'));

describe('request files (mailbox adapter)', () => {
  it('a cancel request matches RequestSchema, with no redispatch fields', async () => {
    const req = cancelRequest(tempDir(), { agentId: 'worker-1@team', pid: 4242 });
    expect((await createMailboxAdapter({ clock: realClock }).cancel(req)).ok).toBe(true);
    const parsed = RequestSchema.strict().parse(readJson(requestFile(req, 'cancel')));
    expect(parsed).toMatchObject({ schema_version: '1', kind: 'cancel', key: req.key, epic_id: 'PROJ-1000', agent_id: 'worker-1@team', pid: 4242 });
    expect(parsed.prompt).toBeUndefined();
  });

  it('a redispatch request matches RequestSchema and carries the attempt, checkpoint and prompt', async () => {
    const req = await redispatchRequest(tempDir());
    expect((await createMailboxAdapter({ clock: realClock }).redispatch(req)).ok).toBe(true);
    const parsed = RequestSchema.strict().parse(readJson(requestFile(req, 'redispatch')));
    expect(parsed).toMatchObject({ kind: 'redispatch', redispatch_attempt: 1, recovery_task_id: req.recoveryTaskId, checkpoint_path: req.checkpointPath, prompt: req.prompt });
  });
});
