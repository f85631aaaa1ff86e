// One escaping rule per sink (issue 36 item 6), applied where text leaves us: a terminal, a JSON
// document, an SVG (XML), a Slack message (mrkdwn), a Markdown file, a Linear comment. Each takes
// text that may come from a row, a transcript or an agent's question and makes it inert there:
// visible, never a command, a forged line, a broadcast, a link or markup. Pure.
import { escapeControls, redactSecrets, safeText } from './safe-text.js';

/** Characters JSON.stringify leaves raw that a reader may act on: DEL, C1, bidi controls and marks, U+2028/U+2029. */
const JSON_UNSAFE = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const uEscape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** Terminal: secrets redacted, every control (newlines too, unless kept) shown as an escape; one line stays one line. */
export function toTerminal(text: string, opts: { keepNewlines?: boolean } = {}): string {
  return safeText(text, opts);
}

/**
 * JSON: `JSON.stringify`, then DEL, C1, bidi characters and line separators written as `\uXXXX`
 * escapes (JSON.stringify already escapes C0). Such characters only occur inside strings, so the
 * document parses back to the same value.
 */
export function toJson(value: unknown, space?: number): string {
  const text = JSON.stringify(value, null, space);
  return text === undefined ? text : text.replace(JSON_UNSAFE, uEscape);
}

/** Not characters in XML 1.0, even as references: C0 but tab/LF/CR (escaped before), lone surrogates, U+FFFE/U+FFFF. */
const XML_INVALID = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]|[\ufffe\uffff]/g;
const XML_SPECIAL: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** XML (SVG) text or attribute value: controls shown as escapes, non-characters as U+FFFD, the five specials as entities. */
export function toXml(text: string): string {
  return escapeControls(text)
    .replace(XML_INVALID, '\ufffd')
    .replace(/[&<>"']/g, (c) => XML_SPECIAL[c]!);
}

/**
 * Slack mrkdwn: `&`, `<`, `>` as entities (Slack's own rule), so `<!channel>`, `<@U123>` and a
 * disguised link `<http://x|y>` arrive as text; controls but newlines shown as escapes.
 */
export function toSlack(text: string): string {
  return escapeControls(redactSecrets(text), { keepNewlines: true }).replace(/[&<>]/g, (c) => XML_SPECIAL[c]!);
}

/** Markdown: one inline run of text — newlines and controls escaped, every character that makes a link, a cell, markup or a heading backslashed. */
export function toMarkdown(text: string): string {
  return escapeControls(redactSecrets(text)).replace(/[\\`*_[\]()<>|#~!]/g, '\\$&');
}

/**
 * Linear comment body (our own Markdown, values already inline-escaped where they are placed):
 * secrets redacted, every control but newline and tab shown as an escape, bidi characters too.
 */
export function toLinear(body: string): string {
  return escapeControls(redactSecrets(body), { keepNewlines: true }).replace(/[\u2028\u2029]/g, uEscape);
}
