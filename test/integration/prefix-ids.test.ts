// The ids a parent transcript names before its lazily read tail are saved with the positions, so a
// restart whose saved tail starts at the same byte of the same file does not scan the parent again.
import { existsSync, openSync, readFileSync, renameSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PrefixIdsFileSchema } from '../../src/contracts/observe-store.js';
import { PREFIX_CHUNK_BYTES, PrefixIds } from '../../src/agents/claude-code/read/prefix-ids.js';
import { taskIdsMentioned } from '../../src/agents/claude-code/parse/records/tasks.js';
import { tempDir } from '../helpers/temp-dir.js';

const MAX = 4 * 1024 * 1024;

/** A parent transcript: a completion report naming `agent` early on, then filler, then the tail. */
function parent(dir: string, agent: string): { file: string; from: number } {
  const file = path.join(dir, 'sess.jsonl');
  const report = JSON.stringify({ type: 'user', toolUseResult: { status: 'completed', agentId: agent } }) + '\n';
  const filler = (JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: 'x'.repeat(200) }] } }) + '\n').repeat(50);
  writeFileSync(file, report + filler + filler);
  return { file, from: Buffer.byteLength(report + filler) };
}

describe('prefix ids saved across restarts', () => {
  it('a restart answers from the saved scan; another tail start, another file or a corrupt save scans again', async () => {
    const dir = tempDir();
    const store = path.join(dir, 'observe', 'prefix-ids.json');
    const { file, from } = parent(dir, 'a1');
    const first = new PrefixIds(MAX, store);
    expect(await first.mention(file, from, 'a1')).toBe(true);
    expect(await first.mention(file, from, 'a2')).toBe(false);
    expect(first.scans).toBe(1);
    await first.save();
    expect(PrefixIdsFileSchema.strict().parse(JSON.parse(readFileSync(store, 'utf8')))).toMatchObject({ version: 1, files: { [file]: { from, ids: ['a1'] } } });

    // The same bytes in place (same file, same tail start): answered from the save, the file not read.
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.from('"agentId":"zz"'), 0, 14, readFileSync(file, 'latin1').indexOf('"agentId":"a1"'));
    closeSync(fd);
    const restarted = new PrefixIds(MAX, store);
    expect(await restarted.mention(file, from, 'a1')).toBe(true);
    expect(restarted.scans).toBe(0);
    // Another tail start: scanned (and now it finds what is there).
    expect(await restarted.mention(file, from + 1, 'a1')).toBe(false);
    expect(restarted.scans).toBe(1);

    // The file replaced (another inode): scanned again.
    const again = new PrefixIds(MAX, store);
    writeFileSync(`${file}.new`, readFileSync(file));
    renameSync(`${file}.new`, file);
    expect(await again.mention(file, from, 'a1')).toBe(false);
    expect(again.scans).toBe(1);

    // A corrupt save is ignored: every parent is scanned again.
    writeFileSync(store, '{"version":1,"files":{"x":');
    const corrupt = new PrefixIds(MAX, store);
    expect(await corrupt.mention(file, from, 'zz')).toBe(true);
    expect(corrupt.scans).toBe(1);
  });

  it('kept in memory only without a file', async () => {
    const dir = tempDir();
    const { file, from } = parent(dir, 'a1');
    const p = new PrefixIds(MAX);
    expect(await p.mention(file, from, 'a1')).toBe(true);
    await p.save();
    expect(existsSync(path.join(dir, 'observe'))).toBe(false);
    expect(p.scans).toBe(1);
  });

  it('a scan in chunks finds every mention a scan of the whole prefix finds, across every chunk boundary', async () => {
    const dir = tempDir();
    const file = path.join(dir, 'sess.jsonl');
    // Lines of every length from ~60 to ~1,100 bytes, each naming one id in one of the ways a
    // record names a task, so mentions fall across chunk boundaries at every offset.
    const ways: ((id: string) => object)[] = [
      (id) => ({ type: 'user', toolUseResult: { status: 'completed', agentId: id } }),
      (id) => ({ type: 'system', subtype: 'task', task_id: id }),
      (id) => ({ type: 'user', message: { content: `<task-notification><task-id> ${id} </task-id></task-notification>` } }),
      (id) => ({ type: 'user', message: { content: `Async agent launched successfully.\nagentId: ${id}` } }),
      (id) => ({ type: 'user', toolUseResult: { backgroundTaskId: id } }),
    ];
    const lines = Array.from({ length: 1000 }, (_, i) => JSON.stringify({ pad: 'x'.repeat(i), ...ways[i % ways.length]!(`id-${i}`) }));
    const prefix = `${lines.join('\n')}\n`;
    // The tail starts inside a last line that names one more id: scanned to that line's end.
    const cut = JSON.stringify({ type: 'user', toolUseResult: { agentId: 'id-cut' } });
    writeFileSync(file, `${prefix}${cut}\n${JSON.stringify({ type: 'user', toolUseResult: { agentId: 'id-after' } })}\n`);
    const from = Buffer.byteLength(prefix) + 5;
    const whole = taskIdsMentioned(`${prefix}${cut}`);
    expect(whole.size).toBe(1001);
    for (const chunkBytes of [1024, 1500, 4096, PREFIX_CHUNK_BYTES]) {
      const p = new PrefixIds(MAX, undefined, chunkBytes);
      for (const id of whole) expect(await p.mention(file, from, id), `${id}, chunks of ${chunkBytes} bytes`).toBe(true);
      expect(await p.mention(file, from, 'id-after')).toBe(false);
      expect(p.scans).toBe(1);
    }
  });
});
