// An append-only JSON-lines file folded incrementally (a Codex rollout, a `--json` stdout): each
// call reads only the bytes appended since the last, and folds its whole lines. I/O.
import { open, stat } from 'node:fs/promises';

/** A file folded so far: where the next read starts, the unfinished last line, the state, the size and mtime seen. */
export interface Folded<S> {
  offset: number;
  rest: string;
  state: S;
  size: number;
  mtimeMs: number;
}

/** Read what `file` gained since `prev` and fold its whole lines; a shorter file is read again from its start. Undefined: no such file. */
export async function foldFile<S>(file: string, prev: Folded<S> | undefined, fresh: () => S, fold: (s: S, line: string) => S): Promise<Folded<S> | undefined> {
  let st;
  try {
    st = await stat(file);
  } catch {
    return undefined;
  }
  let cur: Folded<S> = prev && st.size >= prev.offset ? prev : { offset: 0, rest: '', state: fresh(), size: 0, mtimeMs: 0 };
  if (st.size === cur.offset) return cur.size === st.size && cur.mtimeMs === st.mtimeMs ? cur : { ...cur, size: st.size, mtimeMs: st.mtimeMs };
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(st.size - cur.offset);
    const { bytesRead } = await fh.read(buf, 0, buf.length, cur.offset);
    const text = cur.rest + buf.subarray(0, bytesRead).toString('utf8');
    const lines = text.split('\n');
    const rest = lines.pop() ?? '';
    let state = cur.state;
    for (const l of lines) state = fold(state, l);
    cur = { offset: cur.offset + bytesRead, rest, state, size: st.size, mtimeMs: st.mtimeMs };
  } finally {
    await fh.close();
  }
  return cur;
}
