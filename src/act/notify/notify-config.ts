// The `notifications` config → the settings a Notifier runs with, or none (no URL configured).
// The URL is a secret: the messages here name the key and the fix, never the value.
import type { WatchdogConfig } from '../../contracts/config.js';
import { DEFAULTS } from '../../contracts/defaults.js';
import { InputError } from '../../contracts/errors.js';
import type { Locate } from '../../contracts/parse-yaml.js';
import type { NotifyFormat, NotifyTrigger } from '../../contracts/vocabulary.js';

export interface NotifySettings {
  url: string;
  format: NotifyFormat;
  on: ReadonlySet<NotifyTrigger>;
  timeoutMs: number;
  retries: number;
  isReceiverIdempotent: boolean;
}

/** Settings from the config and the environment; undefined when no webhook is configured; an InputError (without the URL) when it is unusable. */
export function resolveNotifySettings(config: WatchdogConfig, env: NodeJS.ProcessEnv, locate?: Locate): NotifySettings | undefined {
  const n = config.notifications;
  if (!n || (n.url === undefined && n.url_env === undefined)) return undefined;
  const D = DEFAULTS.notifications;
  const bad = (key: 'url' | 'url_env', what: string, hint: string) =>
    new InputError('bad_config', locate ? what : `notifications.${key}: ${what}`, { location: locate?.(['notifications', key]), hint });
  if (n.url !== undefined && n.url_env !== undefined)
    throw bad('url_env', 'set notifications.url or notifications.url_env, not both.', 'Keep url_env (the URL is a secret) and remove url.');
  const url = n.url ?? env[n.url_env!];
  if (!url)
    throw bad(
      'url_env',
      `the environment variable ${n.url_env} is not set or is empty.`,
      `Export ${n.url_env}=<the webhook URL> before starting the watchdog, or remove notifications.url_env.`,
    );
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw bad(
      n.url !== undefined ? 'url' : 'url_env',
      `the webhook URL is not a URL (its value is not shown: it is a secret).`,
      'Give the full URL, e.g. https://hooks.slack.com/services/…',
    );
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw bad(
      n.url !== undefined ? 'url' : 'url_env',
      `the webhook URL must be http(s), got a ${parsed.protocol.replace(':', '')} URL.`,
      'Give an https:// URL.',
    );
  }
  return {
    url,
    format: n.format ?? D.format,
    on: new Set(n.on ?? D.on),
    timeoutMs: n.timeout_ms ?? D.timeout_ms,
    retries: n.retries ?? D.retries,
    isReceiverIdempotent: n.idempotent_receiver ?? D.idempotent_receiver,
  };
}
