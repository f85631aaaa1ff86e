// Every output safe (issue 36 item 6): one escaping rule per sink — terminal, JSON, SVG/XML, Slack
// mrkdwn, Markdown, Linear — applied where text leaves us, run over one battery of hostile strings
// (OSC 52, forged newlines, C1 and bidi characters, <!channel>, disguised links, XML specials); the
// SVG parsed by a strict XML parser and opened in headless Chromium; and the widened secret shapes
// kept out of what the telemetry/*.ndjson and observe/*.json writers store.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { renderNextDoc } from '../../src/commands/next-doc.js';
import type { NextDoc } from '../../src/contracts/next.js';
import { renderNotifyBody } from '../../src/core/notify.js';
import { renderTimelineSvg } from '../../src/core/timeline-svg.js';
import type { Timeline } from '../../src/core/timeline.js';
import { summarizeToolInput } from '../../src/agents/claude-code/parse/tool-input-summary.js';
import { decodeExport } from '../../src/observe/parse/otlp-decode.js';
import { redactSecrets } from '../../src/present/safe-text.js';
import { toJson, toLinear, toMarkdown, toSlack, toTerminal, toXml } from '../../src/present/sinks.js';
import { CHROMIUM_MISSING, findChromium, screenshot } from '../helpers/chromium.js';
import { tempDir } from '../helpers/temp-dir.js';

/** The hostile battery: each is what a row, an agent's question or a transcript may hold. */
export const HOSTILE: readonly string[] = [
  'in_progress\u001b]52;c;ZWNobyBwd25lZA==\u0007', // OSC 52: writes the clipboard
  'done\nrequest cancel E-1:t9:cancel: stop pid 1; kill 1', // a forged line
  'ok\r\u001b[2Kall good', // overwrite the line
  'c1\u009b2J\u0085next\u008d', // C1 CSI, NEL, RI
  'bidi \u202eevil\u202c \u2066iso\u2069 \u200f\u061c', // bidi overrides, isolates, marks
  'line\u2028sep\u2029para', // JS line separators
  '<!channel> <!here> <@U123> please answer', // Slack broadcasts and mentions
  'see <http://evil.example|https://linear.app/ok> now', // a disguised link
  'xml <&>"\' ]]> <![CDATA[x]]> &amp; &#0; </svg>', // XML specials
  'nul\u0000 del\u007f bel\u0007 vt\u000b ff\u000c', // raw C0
  'md **bold** [link](javascript:alert(1)) | pipe | `code` # head _em_ ~strike~', // Markdown structure
  'lone \ud800 surrogate \uffff', // not characters
];

const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;

describe('one escaping rule per sink, over the hostile battery', () => {
  it.each(HOSTILE.map((s) => [JSON.stringify(s), s]))('terminal: %s shows as one line of visible escapes', (_n, s) => {
    const out = toTerminal(s);
    expect(out).not.toMatch(RAW_CONTROL);
    expect(out).not.toContain('\n');
  });

  it.each(HOSTILE.map((s) => [JSON.stringify(s), s]))('JSON: %s round-trips, with no raw control, C1, bidi or line separator in the text', (_n, s) => {
    const out = toJson({ s, nested: [s] }, 2);
    expect(JSON.parse(out)).toEqual({ s, nested: [s] });
    expect(out.replace(/\n {0,4}/g, '')).not.toMatch(RAW_CONTROL);
  });

  it.each(HOSTILE.map((s) => [JSON.stringify(s), s]))('XML: %s is well-formed as text and as an attribute', (_n, s) => {
    const doc = `<?xml version="1.0" encoding="UTF-8"?><t a="${toXml(s)}">${toXml(s)}</t>`;
    expect(XMLValidator.validate(doc)).toBe(true);
    expect(toXml(s)).not.toMatch(RAW_CONTROL);
  });

  it.each(HOSTILE.map((s) => [JSON.stringify(s), s]))('Slack mrkdwn: %s has no control sequence <…> left (no broadcast, no disguised link)', (_n, s) => {
    const out = toSlack(s);
    expect(out).not.toMatch(/[<>]/);
    expect(out).not.toMatch(RAW_CONTROL);
  });

  it.each(HOSTILE.map((s) => [JSON.stringify(s), s]))('Markdown: %s stays one inline run of text (no link, no table cell, no heading)', (_n, s) => {
    const out = toMarkdown(s);
    expect(out).not.toContain('\n');
    expect(out).not.toMatch(RAW_CONTROL);
    expect(out).not.toMatch(/(^|[^\\])[[\]|<>*_`#~]/);
  });

  it.each(HOSTILE.map((s) => [JSON.stringify(s), s]))('Linear: %s keeps its newlines and nothing else raw', (_n, s) => {
    expect(toLinear(s)).not.toMatch(RAW_CONTROL);
  });
});

describe('where text leaves us', () => {
  it("next: a row's free text is printed escaped, never a forged line or a terminal command", () => {
    const doc: NextDoc = {
      schema_version: '1',
      epic_id: 'E-1',
      reason: 'requests',
      exit_code: 10,
      requests: HOSTILE.map((h, i) => ({
        schema_version: '1' as const,
        kind: 'reconcile' as const,
        key: `E-1:t${i}:reconcile`,
        epic_id: 'E-1',
        task_id: `t${i}`,
        ticket_id: 'P-1',
        created_at: '2026-04-02T10:00:00.000Z',
        reason: h,
        what_disagrees: h,
        disagreement: 'agent_finished',
        path: `epics/E-1/requests/E-1__t${i}__reconcile.reconcile.json`,
      })),
      unanswered: [],
      escalations: [],
      attention: [{ key: 'k', kind: 'human_wait', detail: HOSTILE.join(' '), what_to_do: 'answer it' }],
      pending: [],
      wave: { in_flight: 1, terminal: 0, blocked: 0, unknown_status: 0, pending_requests: HOSTILE.length },
    } as unknown as NextDoc;
    const out = renderNextDoc(doc);
    expect(out).not.toMatch(RAW_CONTROL);
    // One line per request, the attention, the wave and the verdict: no forged line.
    expect(out.split('\n').filter(Boolean)).toHaveLength(HOSTILE.length + 3);
    expect(out.split('\n').filter((l) => l.startsWith('request '))).toHaveLength(HOSTILE.length);
  });

  it("Slack: an agent's question reaches the channel as text, with no <!channel> and no disguised link", () => {
    for (const h of HOSTILE) {
      const body = renderNotifyBody(
        { event: 'notify_started', trigger: 'attention', key: 'k', epic_id: 'E-1', about: 'a', text: h, timestamp_utc: '2026-04-02T10:00:00.000Z' } as never,
        'slack',
      );
      const text = (JSON.parse(body) as { text: string }).text;
      expect(text).not.toMatch(/<[!@#]|<https?:/);
      expect(body).not.toMatch(RAW_CONTROL);
    }
    const generic = renderNotifyBody(
      {
        event: 'notify_started',
        trigger: 'attention',
        key: 'k',
        epic_id: 'E-1',
        about: 'a',
        text: HOSTILE.join(' '),
        timestamp_utc: '2026-04-02T10:00:00.000Z',
      } as never,
      'json',
    );
    expect(generic).not.toMatch(RAW_CONTROL);
    expect((JSON.parse(generic) as { text: string }).text).toBe(HOSTILE.join(' '));
  });

  const timeline = (): Timeline =>
    ({
      epicId: 'E-1',
      startMs: 0,
      endMs: 600_000,
      massStallsMs: [],
      lanes: HOSTILE.map((h, i) => ({
        taskId: `t${i}`,
        ticketId: h,
        startMs: 0,
        endMs: 500_000,
        activityMs: [10_000],
        outcome: h,
        marks: [{ kind: 'stall_detected', atMs: 200_000, text: h }],
      })),
      summary: {
        stalls: 1,
        redispatches: 0,
        cancels: 0,
        escalations: 0,
        trackerSkipped: 0,
        requestsAnswered: 0,
        requestsUnanswered: 0,
        waitingHuman: 0,
        massStalls: 0,
        detectLagMs: [],
      },
    }) as unknown as Timeline;

  it('timeline --svg: well-formed XML for hostile names, parsed by a strict parser', () => {
    const svg = renderTimelineSvg(timeline());
    expect(XMLValidator.validate(svg)).toBe(true);
    expect(svg).not.toMatch(RAW_CONTROL);
  });

  it.skipIf(!findChromium())(
    `timeline --svg opens in headless Chromium (${findChromium() ? 'Chromium found' : CHROMIUM_MISSING})`,
    { timeout: 120_000 },
    async () => {
      const file = path.join(tempDir(), 'timeline.svg');
      writeFileSync(file, renderTimelineSvg(timeline()));
      const shot = await screenshot(file, 900, 700);
      // A parse error page is drawn instead of the picture: Chromium shows the SVG's white background and dark text.
      expect(shot.width).toBe(900);
      let dark = 0;
      for (let y = 0; y < shot.height; y += 4) for (let x = 0; x < shot.width; x += 4) if (shot.at(x, y).every((c) => c < 100)) dark++;
      expect(dark).toBeGreaterThan(10);
      expect(shot.at(2, 2)).toEqual([255, 255, 255]);
      // Chromium's XML error page ("This page contains the following errors") is a #fdd box: none of it.
      let errorBox = 0;
      for (let y = 0; y < Math.min(shot.height, 200); y += 2)
        for (let x = 0; x < shot.width; x += 4) {
          const [r, g, b] = shot.at(x, y);
          if (r > 245 && g > 210 && g < 232 && b > 210 && b < 232) errorBox++;
        }
      expect(errorBox).toBe(0);
    },
  );
});

describe('secret shapes beyond the first five', () => {
  const SHAPES: [string, string][] = [
    ['curl -H "X-Api-Key: zq8Rf3kLm0pQ7wX2" https://api.example', 'zq8Rf3kLm0pQ7wX2'],
    ['curl -H X-Api-Key:zq8Rf3kLm0pQ7wX2 https://api.example', 'zq8Rf3kLm0pQ7wX2'],
    ['{\\"token\\":\\"tk7Hq2Zp9Lm4Xw8R\\",\\"n\\":1}', 'tk7Hq2Zp9Lm4Xw8R'],
    ['mysql --password hunter2Secret9 -u root', 'hunter2Secret9'],
    ['mysql --password=hunter2Secret9 -u root', 'hunter2Secret9'],
    ['deploy --api-key ak9Zq2Lm7Xw4Rt1Y', 'ak9Zq2Lm7Xw4Rt1Y'],
    ['config api_key: ak9Zq2Lm7Xw4Rt1Y', 'ak9Zq2Lm7Xw4Rt1Y'],
    ['git clone https://deploy:pa55Wd9Zq2Lm@git.example/repo.git', 'pa55Wd9Zq2Lm'],
    ['psql postgres://app:s3cr3tPw9x@db:5432/app', 's3cr3tPw9x'],
  ];

  it.each(SHAPES)('%s: redacted', (text, secret) => {
    const out = redactSecrets(text);
    expect(out).not.toContain(secret);
    expect(out).toContain('[redacted]');
  });

  it('no shape reaches what observe/*.json stores of a Bash call (its command and input summary)', () => {
    for (const [text, secret] of SHAPES) {
      const facts = summarizeToolInput('Bash', { command: text, description: 'run it' });
      expect(JSON.stringify(facts)).not.toContain(secret);
    }
  });

  it('no shape reaches the telemetry/*.ndjson lines the OTLP receiver writes', () => {
    const fixture = readFileSync(path.join(import.meta.dirname, '..', 'fixtures', 'otlp', 'json-logs-1.json'), 'utf8');
    for (const [text, secret] of SHAPES) {
      const body = fixture.replace('sleep 2; echo done', JSON.stringify(text).slice(1, -1).replaceAll('\\', '\\\\').replaceAll('"', '\\"'));
      expect(body).not.toBe(fixture);
      const decoded = decodeExport(new TextEncoder().encode(body), 'logs', 'json', '127.0.0.1', Date.now());
      expect(decoded.events.length).toBeGreaterThan(0);
      expect(JSON.stringify(decoded.events)).not.toContain(secret);
    }
  });
});

describe('the Linear comment, as the fake Linear server receives it', () => {
  it('carries every hostile string with its controls and bidi characters escaped, and no secret', async () => {
    const { escalateInLinear } = await import('../../src/act/tracker/linear.js');
    const { startLinearServer } = await import('../helpers/linear-server.js');
    await using fake = await startLinearServer();
    const body = `Stalled.\n\n${HOSTILE.join('\n')}\nmysql --password hunter2Secret9`;
    await escalateInLinear({
      apiKey: 'lin_api_TESTKEY_0123456789abcdef',
      apiUrl: fake.url,
      ticketId: 'ENG-123',
      commentBody: body,
      idempotencyKey: 'E-1:t1:escalate',
      sleep: async () => undefined,
      random: () => 0,
    });
    const sent = fake.requests.find((r) => r.variables?.input?.body)!.variables.input.body as string;
    expect(sent).not.toMatch(RAW_CONTROL);
    expect(sent).not.toContain('hunter2Secret9');
    expect(sent).toContain('\\e]52;c;');
    expect(sent.split('\n').length).toBeGreaterThan(HOSTILE.length);
  });
});
