// What kind of give-up Claude Code names, in a give-up record (records/assistant.ts) and in the
// StopFailure hook (parse-hook-activity.ts), which say it with the same `error` kinds and words.
//
// The plan's usage limit in words, in a give-up record's text and in the StopFailure hook's
// `last_assistant_message`: with a claude.ai login it gives up at once at the limit, saying
// "You've hit your session limit · resets 1:43am (UTC)" (2.1.197) or "You've hit your 5-hour
// limit · resets …" (2.1.33x; weekly, per-model and spend limits alike), older builds "Claude AI
// usage limit reached|<epoch>"; no credits left is the same wall. Measured:
// test/realagent/usage-limit-login.test.ts and api-walls.test.ts. Pure.
import type { ApiFailureKind } from '../../../observe/parse/observation.js';

const PLAN_LIMIT_WORDS = /^You(?:'|\u2019)ve hit your [^\n]*?limit\b|usage limit reached|out of (?:extra )?usage credits/i;

/** Whether Claude Code's message says the plan's usage limit stopped it (a replacement would meet the same wall). */
export const namesPlanLimit = (text: string | undefined): boolean => text !== undefined && PLAN_LIMIT_WORDS.test(text.trim());

/**
 * A give-up's own kind, where Claude Code names one that no replacement cures: its `error`
 * (measured on 2.1.197 and 2.1.337: `authentication_failed` for a 401 or 403, `billing_error` for
 * "Credit balance is too low") or 2.1.33x's `apiError`. The same kinds 2.1.337's own recovery
 * advice calls `fix_setup` (the credentials: a person must fix them) and `wait` (the plan's limit,
 * the credits), and `make_room` (the context).
 */
export const FAILURE_BY_ERROR: Readonly<Record<string, ApiFailureKind>> = {
  authentication_failed: 'auth_failed',
  oauth_org_not_allowed: 'auth_failed',
  account_on_hold: 'auth_failed',
  verification_required: 'auth_failed',
  cloud_credential_error: 'auth_failed',
  billing_error: 'usage_limit',
};
export const FAILURE_BY_API_ERROR: Readonly<Record<string, ApiFailureKind>> = {
  stored_login_refused: 'auth_failed',
  oauth_refresh_store_refused: 'auth_failed',
  named_profile_unusable: 'auth_failed',
  login_replaces_organization_sign_in: 'auth_failed',
  provider_credentials: 'auth_failed',
  gateway_signin_required: 'auth_failed',
  gateway_session_expired: 'auth_failed',
  api_key_auth_disabled: 'auth_failed',
  org_disabled_credential: 'auth_failed',
  invalid_credential_header: 'auth_failed',
  no_credential: 'auth_failed',
  token_revoked: 'auth_failed',
  unattended_start_limit: 'usage_limit',
  autocompact_thrashing: 'context_exhausted',
  prompt_too_long: 'context_exhausted',
};
