// What a webhook hears about (core/notify.ts), the body it gets, and the config checks that never
// show the URL (act/notify/notify-config.ts). Plain data in, plain data out.
import { describe, expect, it } from 'vitest';
import { resolveNotifySettings } from '../../src/act/notify/notify-config.js';
import { retryAfterMs } from '../../src/act/notify/webhook.js';
import type { DispatchEvent, EventOf } from '../../src/contracts/events.js';
import { InputError } from '../../src/contracts/errors.js';
import { NOTIFY_TRIGGERS, type NotifyTrigger } from '../../src/contracts/vocabulary.js';
import { notificationFor, renderNotifyBody } from '../../src/core/notify.js';

const ALL = new Set<NotifyTrigger>(NOTIFY_TRIGGERS);
const env = { timestamp_utc: '2026-04-02T10:00:00.000Z', epic_id: 'E-1', run_id: 'run-1' };
const ids = { ticket_id: 'ENG-1', task_id: 't1', agent_id: 't1' };
const ev = (e: Record<string, unknown>) => ({ ...env, ...e }) as DispatchEvent;

describe('notificationFor', () => {
  it.each<[string, DispatchEvent, NotifyTrigger, string, RegExp]>([
    [
      'an escalation',
      ev({ event: 'escalated_to_blocked', ...ids, key: 'E-1:t1:escalate', attempt_count: 3, friction_path: 'friction/x.md', tracker: 'updated' }),
      'escalation',
      'E-1:t1:escalate',
      /ENG-1 \(epic E-1\) escalated after 3 stall\(s\): moved to Blocked\. Friction note: friction\/x\.md$/,
    ],
    [
      'an unanswered request',
      ev({
        event: 'request_unanswered',
        key: 'E-1:t1:redispatch',
        kind: 'redispatch',
        ticket_id: 'ENG-1',
        task_id: 't1',
        answer_by: '2026-04-02T09:58:00.000Z',
      }),
      'unanswered_request',
      'E-1:t1:redispatch',
      /redispatch request for t1 \(ENG-1, epic E-1\) was not answered by 2026-04-02T09:58:00\.000Z \(counted as a failed attempt\)/,
    ],
    [
      'orphans of a start-up',
      ev({ event: 'recovery_summary', done: [], finished: [], orphans: ['E-1:t1:redispatch'], orphan_count: 1, friction_path: 'friction/o.md' }),
      'orphan',
      'recovery@run-1',
      /1 action\(s\) a crash left undecided, never re-fired: E-1:t1:redispatch\. Check each by hand \(friction note friction\/o\.md\)/,
    ],
    [
      'a mass stall',
      ev({ event: 'mass_stall', stalled: 3, in_flight: 4, task_ids: ['a', 'b', 'c'], episode_started_at: '2026-04-02T09:59:00.000Z' }),
      'mass_stall',
      'episode@2026-04-02T09:59:00.000Z',
      /3 of 4 tasks stalled at once \(a, b, c\)/,
    ],
    [
      'a long human wait',
      ev({
        event: 'attention_needed',
        ...ids,
        key: 'E-1:t1:human_wait@x',
        kind: 'human_wait',
        reason: 'a person has been needed for 1801s: permission prompt',
      }),
      'human_wait',
      'E-1:t1:human_wait@x',
      /t1 \(ENG-1, epic E-1\) waits on a person: a person has been needed for 1801s/,
    ],
  ])('%s', (_, e, trigger, about, text) => {
    const n = notificationFor(e, ALL)!;
    expect(n).toMatchObject({ event: 'notify_started', trigger, about, key: `E-1:notify:${trigger}:${about}` });
    expect(n.text).toMatch(/^\[dispatch-watchdog\] /);
    expect(n.text).toMatch(text);
    // Not configured: nothing.
    expect(notificationFor(e, new Set(NOTIFY_TRIGGERS.filter((t) => t !== trigger)))).toBeUndefined();
  });

  it('is silent about the rest: a tracker retry, a start-up without orphans, other attention, other events', () => {
    for (const e of [
      ev({ event: 'escalated_to_blocked', ...ids, key: 'E-1:t1:escalate', attempt_count: 3, friction_path: 'f', tracker: 'updated', is_retry: true }),
      ev({ event: 'recovery_summary', done: ['k'], finished: [], orphans: [], orphan_count: 0 }),
      ev({ event: 'attention_needed', ...ids, key: 'k', kind: 'unobservable', reason: 'r' }),
      ev({
        event: 'stall_detected',
        ...ids,
        stall_reason: 'inactivity',
        idle_seconds: 200,
        bash_timeout_exemption: false,
        redispatch_attempt: 1,
        max_redispatches: 2,
        action_taken: 'redispatch',
      }),
    ])
      expect(notificationFor(e, ALL)).toBeUndefined();
  });

  it('the JSON body comes from the journal line alone: the same bytes on every attempt', () => {
    const started = {
      ...env,
      event: 'notify_started',
      key: 'E-1:notify:escalation:k',
      trigger: 'escalation',
      about: 'k',
      text: 'hi',
      ticket_id: 'ENG-1',
    } as EventOf<'notify_started'>;
    expect(JSON.parse(renderNotifyBody(started, 'json'))).toEqual({
      source: 'dispatch-watchdog',
      trigger: 'escalation',
      key: 'E-1:notify:escalation:k',
      epic_id: 'E-1',
      ticket_id: 'ENG-1',
      about: 'k',
      text: 'hi',
      at: env.timestamp_utc,
    });
    expect(renderNotifyBody(started, 'slack')).toBe('{"text":"hi"}');
  });
});

describe('resolveNotifySettings', () => {
  const SECRET = 'https://hooks.slack.com/services/T0/B0/s3cr3tTOKEN';
  const problem = (f: () => unknown) => {
    try {
      f();
    } catch (e) {
      expect(e).toBeInstanceOf(InputError);
      return (e as InputError).describe();
    }
    throw new Error('no error');
  };

  it('no URL: no notifications; a URL from the environment, with the defaults', () => {
    expect(resolveNotifySettings({}, {})).toBeUndefined();
    expect(resolveNotifySettings({ notifications: { format: 'json' } }, {})).toBeUndefined();
    expect(resolveNotifySettings({ notifications: { url_env: 'HOOK' } }, { HOOK: SECRET })).toEqual({
      url: SECRET,
      format: 'slack',
      on: new Set(NOTIFY_TRIGGERS),
      timeoutMs: 10_000,
      retries: 4,
      isReceiverIdempotent: false,
    });
  });

  it('an unusable URL is an error naming the key and the fix, never the URL', () => {
    expect(problem(() => resolveNotifySettings({ notifications: { url: 'not a url s3cr3tTOKEN' } }, {}))).toBe(
      'notifications.url: the webhook URL is not a URL (its value is not shown: it is a secret). Give the full URL, e.g. https://hooks.slack.com/services/…',
    );
    expect(problem(() => resolveNotifySettings({ notifications: { url: 'ftp://x/s3cr3tTOKEN' } }, {}))).toBe(
      'notifications.url: the webhook URL must be http(s), got a ftp URL. Give an https:// URL.',
    );
    expect(problem(() => resolveNotifySettings({ notifications: { url: SECRET, url_env: 'HOOK' } }, {}))).toBe(
      'notifications.url_env: set notifications.url or notifications.url_env, not both. Keep url_env (the URL is a secret) and remove url.',
    );
    expect(problem(() => resolveNotifySettings({ notifications: { url_env: 'HOOK' } }, { HOOK: '' }))).toBe(
      'notifications.url_env: the environment variable HOOK is not set or is empty. Export HOOK=<the webhook URL> before starting the watchdog, or remove notifications.url_env.',
    );
  });
});

describe('retryAfterMs', () => {
  it.each([
    ['3', 3000],
    ['0', 0],
    [null, undefined],
    ['soon', undefined],
    ['Thu, 02 Apr 2026 10:00:05 GMT', 5000],
  ])('%s', (h, ms) => {
    expect(retryAfterMs(h, Date.parse('2026-04-02T10:00:00Z'))).toBe(ms);
  });
});
