// Text from files (a state file, a transcript, a config, a hook line) made safe to show: secrets
// redacted, and control characters (ESC, CR, BEL, other C0 and C1, bidi overrides) escaped so a
// terminal never runs them. One helper for every place such text is printed or quoted. Pure.

/**
 * Secrets as they appear in text an agent or a file may hold. Each keeps what tells the reader
 * what it was (`Authorization: Bearer`, `LINEAR_API_KEY=`, `sk-ant-`) and hides the value.
 */
const SECRET_PATTERNS: readonly [RegExp, string | ((...m: string[]) => string)][] = [
  // Provider tokens with a known prefix, wherever they stand.
  [/\bsk-ant-[A-Za-z0-9_-]{6,}/g, 'sk-ant-[redacted]'],
  [/\blin_(api|oauth)_[A-Za-z0-9]{6,}/g, 'lin_$1_[redacted]'],
  [/\b(gh[pousr]_)[A-Za-z0-9]{16,}/g, '$1[redacted]'],
  [/\b(github_pat_)[A-Za-z0-9_]{16,}/g, '$1[redacted]'],
  [/\b(xox[abprs]-)[A-Za-z0-9-]{8,}/g, '$1[redacted]'],
  [/\b(AKIA)[A-Z0-9]{16}\b/g, '$1[redacted]'],
  // An Authorization header or a bearer token, quoted or not.
  [
    /\b(authorization["']?\s*[:=]\s*["']?)(?:(bearer|basic|token)\s+)?[^\s"',;]+/gi,
    (_m, name: string, scheme?: string) => `${name}${scheme ? `${scheme} ` : ''}[redacted]`,
  ],
  [/\b(bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, '$1[redacted]'],
  // NAME=value (an environment, a command line), and "name": "value" (JSON, quoted YAML, and JSON escaped
  // once or more inside another string: \"name\":\"value\"), where the name says it is a secret.
  [
    /\b([A-Za-z0-9_.-]*(?:api[_-]?key|access[_-]?key|secret|token|password|passwd|credentials?)["']?\s*=\s*["']?)([^\s"',;&\u0000-\u001f\u007f]{4,})/gi,
    '$1[redacted]',
  ],
  [
    /\b([A-Za-z0-9_.-]*(?:api[_-]?key|access[_-]?key|secret|token|password|passwd|credentials?)\\*["']?\s*:\s*\\*["'])([^\s"',;&\\\u0000-\u001f\u007f]{4,})/gi,
    '$1[redacted]',
  ],
  // A header or YAML key whose name says it is a key (`X-Api-Key: v`, `api_key: v`), unquoted: the value
  // must look like one (8+ characters with a digit), so our own `linear.api_key: expected a string` stays.
  [
    /\b([A-Za-z0-9_.-]*(?:api[_-]?key|access[_-]?key|auth[_-]?token|secret[_-]?key|password|passwd)\s*:\s*)(?=[^\s"',;]*\d)([A-Za-z0-9._~+/=-]{8,})/gi,
    '$1[redacted]',
  ],
  // A command-line flag (`--password v`, `--api-key=v`, `--token v`): whatever follows is the secret.
  [/(\s--?[A-Za-z0-9-]*(?:password|passwd|secret|token|api-?key|access-?key)(?:=|\s+))(?!-)([^\s"']+)/gi, '$1[redacted]'],
  // Credentials in a URL (`https://user:pass@host`).
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s/:@]+:)[^\s/@]+@/gi, '$1[redacted]@'],
];

/** A quick test before the patterns: most text holds none of these words. */
const MAYBE_SECRET = /sk-ant-|lin_(?:api|oauth)_|gh[pousr]_|github_pat_|xox[abprs]-|AKIA|authoriz|bearer|key|secret|token|passw|credential|:\/\/[^\s/@]*@/i;

/** `text` with every secret we know the shape of replaced by `[redacted]`; the same string when there is none. */
export function redactSecrets(text: string): string {
  if (!MAYBE_SECRET.test(text)) return text;
  let out = text;
  for (const [re, to] of SECRET_PATTERNS) out = typeof to === 'string' ? out.replace(re, to) : out.replace(re, to);
  return out;
}

/**
 * C0 controls (but tab and, when kept, newline), DEL, C1 controls, and the bidi embeddings,
 * overrides and isolates (U+202A–U+202E, U+2066–U+2069) with the marks U+200E, U+200F, U+061C, and
 * the line and paragraph separators U+2028, U+2029.
 */
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const CONTROL_BUT_NEWLINE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\u001b': '\\e' };

const escapeOne = (c: string) =>
  NAMED[c] ?? (c.charCodeAt(0) <= 0xff ? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}` : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** Control characters shown as escapes (`\e[31m`, `\r`, `\x07`, `\u202e`): visible, never run by a terminal. */
export function escapeControls(text: string, opts: { keepNewlines?: boolean } = {}): string {
  return text.replace(opts.keepNewlines ? CONTROL_BUT_NEWLINE : CONTROL, escapeOne);
}

/** Text from a file as it may be printed or quoted: secrets redacted, control characters escaped. */
export function safeText(text: string, opts: { keepNewlines?: boolean } = {}): string {
  return escapeControls(redactSecrets(text), opts);
}
