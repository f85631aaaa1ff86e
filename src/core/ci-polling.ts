// Does a shell command wait on CI? By its shape, not a substring (issue 33 item 3): the command
// line is split into simple commands (`&&`, `||`, `;`, `|`, newlines), each with its wrappers
// taken off (`VAR=x`, `timeout 600`, `time`, `nohup`, `!`, `bash -c '…'`, `bash -lc '…'`), and matched against
// shapes like `gh pr checks --watch`: the shape's words lead the command (a path to the program
// is fine), its flags appear anywhere among the arguments (`gh pr checks 42 --watch`,
// `gh pr checks --watch --fail-fast 42`). A command repeated by `watch -n 30 …` or by a
// `while`/`until` loop polls when its words match a shape, flags or not (`watch -n 30 gh pr
// checks 42`). Text that only mentions a shape (`echo "gh run watch"`, `grep 'gh pr checks --watch'`)
// is an argument, not a command. Pure.

/** Split a command line into simple commands, each a list of words (quotes removed, operators dropped). */
export function simpleCommands(line: string): string[][] {
  const out: string[][] = [];
  let words: string[] = [];
  let word = '';
  let inWord = false;
  const endWord = () => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    if (words.length > 0) out.push(words);
    words = [];
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      word += line.slice(i + 1, end < 0 ? line.length : end);
      inWord = true;
      i = end < 0 ? line.length : end;
    } else if (c === '"') {
      let j = i + 1;
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\' && j + 1 < line.length) j++;
        word += line[j];
      }
      inWord = true;
      i = j;
    } else if (c === '\\' && i + 1 < line.length) {
      if (line[i + 1] !== '\n') word += line[i + 1];
      inWord = true;
      i++;
    } else if (c === ' ' || c === '\t') {
      endWord();
    } else if (c === '\n' || c === ';' || c === '&' || c === '|' || c === '(' || c === ')' || c === '`') {
      endCommand();
    } else if (c === '#' && !inWord) {
      const nl = line.indexOf('\n', i);
      i = nl < 0 ? line.length : nl - 1;
    } else {
      word += c;
      inWord = true;
    }
  }
  endCommand();
  return out;
}

/** Words that start a shell construct or wrap a command without being it. */
const KEYWORDS = new Set([
  '!',
  'if',
  'then',
  'else',
  'elif',
  'do',
  'while',
  'until',
  '{',
  '}',
  'time',
  'nohup',
  'command',
  'exec',
  'builtin',
  'env',
  'sudo',
  'stdbuf',
  'unbuffer',
]);
const LOOPS = new Set(['while', 'until']);
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash']);
const isAssignment = (w: string) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(w);
const base = (w: string) => w.slice(w.lastIndexOf('/') + 1);

interface Unwrapped {
  words: string[];
  /** The command is repeated (`watch`, or the condition or body of a while/until loop). */
  isRepeated: boolean;
  /** A command line inside this one (`bash -c '…'`, `watch '…'` with the command as one word). */
  inner?: string;
}

/** Take the wrappers off one simple command. */
function unwrap(words: string[], isInLoop: boolean): Unwrapped {
  let i = 0;
  let isRepeated = isInLoop;
  for (;;) {
    const w = words[i];
    if (w === undefined) return { words: [], isRepeated };
    if (LOOPS.has(w)) isRepeated = true;
    if (KEYWORDS.has(w) || isAssignment(w)) {
      i++;
      continue;
    }
    const name = base(w);
    if (name === 'timeout') {
      // timeout [-s SIG] [-k D] [--foreground] DURATION command…
      i++;
      while (words[i]?.startsWith('-')) i += /^-[sk]$|^--(signal|kill-after)$/.test(words[i]!) ? 2 : 1;
      i++;
      continue;
    }
    if (name === 'watch') {
      // watch [-n N | --interval N | -d | …] command… ; the command may be one quoted word.
      isRepeated = true;
      i++;
      while (words[i]?.startsWith('-')) i += /^-n$|^--interval$/.test(words[i]!) ? 2 : 1;
      const rest = words.slice(i);
      return rest.length === 1 && /\s/.test(rest[0]!) ? { words: [], isRepeated, inner: rest[0] } : { words: rest, isRepeated };
    }
    if (SHELLS.has(name)) {
      // `bash -c '…'`, `bash -lc '…'` (Codex runs every command so), `bash -l -c '…'`.
      let j = i + 1;
      while (words[j]?.startsWith('-') && !/^-[A-Za-z]*c[A-Za-z]*$/.test(words[j]!)) j++;
      if (words[j] !== undefined && /^-[A-Za-z]*c[A-Za-z]*$/.test(words[j]!) && words[j + 1] !== undefined)
        return { words: [], isRepeated, inner: words[j + 1] };
    }
    return { words: words.slice(i), isRepeated };
  }
}

/** A shape: the words that lead the command and the flags it must carry. */
function shapeOf(pattern: string): { words: string[]; flags: string[] } {
  const parts = pattern.trim().split(/\s+/).filter(Boolean);
  return { words: parts.filter((p) => !p.startsWith('-')), flags: parts.filter((p) => p.startsWith('-')) };
}

/** One simple command against one shape; a repeated command needs the shape's words only. */
function matches(words: readonly string[], shape: { words: string[]; flags: string[] }, isRepeated: boolean): boolean {
  if (shape.words.length === 0 || words.length < shape.words.length) return false;
  if (base(words[0]!) !== shape.words[0]) return false;
  for (let k = 1; k < shape.words.length; k++) if (words[k] !== shape.words[k]) return false;
  if (isRepeated) return true;
  const flags = new Set(words.slice(shape.words.length).map((a) => a.split('=')[0]!));
  return shape.flags.every((f) => flags.has(f));
}

/** Whether `command` waits on CI, by the shapes in `patterns` (config `exemptions.ci_polling_patterns`). */
export function isCiPolling(command: string, patterns: readonly string[], depth = 0): boolean {
  if (!command || depth > 3) return false;
  const shapes = patterns.map(shapeOf);
  const commands = simpleCommands(command);
  // A while/until loop repeats every command up to its `done`.
  let isInLoop = false;
  for (const words of commands) {
    if (LOOPS.has(words[0]!)) isInLoop = true;
    const u = unwrap(words, isInLoop);
    if (u.inner !== undefined) {
      if (isCiPolling(u.inner, u.isRepeated ? shapes.map((s) => s.words.join(' ')) : patterns, depth + 1)) return true;
      continue;
    }
    if (shapes.some((s) => matches(u.words, s, u.isRepeated))) return true;
    if (words.includes('done')) isInLoop = false;
  }
  return false;
}
