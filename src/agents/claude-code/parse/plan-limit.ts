// Claude Code's words for the plan's usage limit, in a give-up record's text and in the StopFailure
// hook's `last_assistant_message`: with a claude.ai login it gives up at once at the limit, saying
// "You've hit your session limit · resets 1:43am (UTC)" (2.1.197) or "You've hit your 5-hour
// limit · resets …" (2.1.33x; weekly, per-model and spend limits alike), older builds "Claude AI
// usage limit reached|<epoch>"; no credits left is the same wall. Measured:
// test/realagent/usage-limit-login.test.ts. Pure.

const PLAN_LIMIT_WORDS = /^You(?:'|\u2019)ve hit your [^\n]*?limit\b|usage limit reached|out of (?:extra )?usage credits/i;

/** Whether Claude Code's message says the plan's usage limit stopped it (a replacement would meet the same wall). */
export const namesPlanLimit = (text: string | undefined): boolean => text !== undefined && PLAN_LIMIT_WORDS.test(text.trim());
