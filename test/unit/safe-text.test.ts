// Text from files as it is printed: secrets redacted, control characters escaped (src/present/safe-text.ts).
import { describe, expect, it } from 'vitest';
import { escapeControls, redactSecrets, safeText } from '../../src/present/safe-text.js';

describe('redactSecrets', () => {
  it.each([
    ['LINEAR_API_KEY=lin_api_0123456789abcdef\u0000HOME=/root', 'LINEAR_API_KEY=[redacted]\u0000HOME=/root'],
    ['ANTHROPIC_API_KEY=sk-ant-api03-abcdefghijklmnop', 'ANTHROPIC_API_KEY=[redacted]'],
    ['the key sk-ant-api03-abcdefghijklmnop leaked', 'the key sk-ant-[redacted] leaked'],
    ['posted with lin_api_0123456789abcdef', 'posted with lin_api_[redacted]'],
    ['curl -H "Authorization: Bearer abc.def.ghi" https://x', 'curl -H "Authorization: Bearer [redacted]" https://x'],
    ['authorization=deadbeefcafe', 'authorization=[redacted]'],
    ['sent bearer eyJhbGciOiJIUzI1NiJ9.e30', 'sent bearer [redacted]'],
    ['{"api_key": "abcd1234efgh"}', '{"api_key": "[redacted]"}'],
    ['GITHUB_TOKEN=ghp_0123456789abcdefghij0123', 'GITHUB_TOKEN=[redacted]'],
    ['push with ghp_0123456789abcdefghij0123', 'push with ghp_[redacted]'],
    ['DB_PASSWORD=hunter22', 'DB_PASSWORD=[redacted]'],
    ["password: 'hunter22'", "password: '[redacted]'"],
  ])('%j', (text, want) => expect(redactSecrets(text)).toBe(want));

  it.each([
    'max_tokens: 1000 used',
    'the idempotency key E-1:t1:escalate',
    'Running the suite (42 tests)',
    'stalled: no tool call for 130s',
    'watchdog.config.yaml:3:3 linear.api_key: expected a string',
  ])('leaves %j alone', (text) => {
    expect(redactSecrets(text)).toBe(text);
  });
});

describe('escapeControls', () => {
  it('shows ESC, CR, BEL, other C0 and C1 controls and bidi overrides as escapes', () => {
    expect(escapeControls('in_progress\u001b[31mRED\u0007\r\u0000\u009b2J\u202eevil\u2066x\u2069')).toBe(
      'in_progress\\e[31mRED\\x07\\r\\x00\\x9b2J\\u202eevil\\u2066x\\u2069',
    );
  });

  it('keeps tabs and ordinary Unicode; newlines unless told to keep them', () => {
    expect(escapeControls('a\tb é 日本 ✓\nc')).toBe('a\tb é 日本 ✓\\nc');
    expect(escapeControls('a\nb\u001b', { keepNewlines: true })).toBe('a\nb\\e');
  });
});

describe('safeText', () => {
  it('redacts, then escapes', () => {
    expect(safeText('TOKEN=abcdef123\u001b]0;title\u0007')).toBe('TOKEN=[redacted]\\e]0;title\\x07');
  });
});
