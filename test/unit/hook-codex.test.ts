// `hook install --codex` as a text edit of Codex's config.toml (commands/hook-codex.ts): our block
// between markers, replaced in place by a second install, taken out by uninstall, every other byte kept.
import { describe, expect, it } from 'vitest';
import { CODEX_HOOK_EVENTS, codexConfigFile, planCodexHookInstall, planCodexHookUninstall } from '../../src/commands/hook-codex.js';

const CONFIG = 'model = "gpt-5.1-codex"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "mock"\n';
const CMD = "node '/opt/dw/bundle/hook.cjs' --state-dir /var/dw";

describe('hook install --codex', () => {
  it('appends one [[hooks.<Event>]] table per event, each running our command', () => {
    const e = planCodexHookInstall(CONFIG, CMD);
    expect(e).toMatchObject({ isChanged: true, removed: 0, added: [...CODEX_HOOK_EVENTS] });
    expect(e.text.startsWith(`${CONFIG}\n# >>> dispatch-watchdog hook`)).toBe(true);
    for (const ev of CODEX_HOOK_EVENTS) expect(e.text).toContain(`[[hooks.${ev}]]\n`);
    expect(e.text.split(`command = ${JSON.stringify(CMD)}`)).toHaveLength(CODEX_HOOK_EVENTS.length + 1);
    expect(e.text).toContain('[[hooks.PreToolUse]]\nmatcher = ".*"\n');
  });

  it('a second install changes nothing; a new state dir replaces the block in place; uninstall restores the file', () => {
    const once = planCodexHookInstall(CONFIG, CMD).text;
    expect(planCodexHookInstall(once, CMD)).toMatchObject({ isChanged: false, text: once });
    const tail = '[profiles.fast]\nmodel = "x"\n';
    const moved = planCodexHookInstall(once + tail, CMD.replace('/var/dw', '/srv/dw'));
    expect(moved).toMatchObject({ isChanged: true, removed: 1 });
    expect(moved.text).toContain('/srv/dw');
    expect(moved.text).not.toContain('/var/dw');
    expect(moved.text.endsWith(tail)).toBe(true);
    expect(planCodexHookUninstall(once)).toMatchObject({ isChanged: true, removed: 1, text: CONFIG });
    expect(planCodexHookUninstall(CONFIG)).toMatchObject({ isChanged: false, text: CONFIG });
    expect(planCodexHookInstall(undefined, CMD).text.startsWith('# >>> dispatch-watchdog hook')).toBe(true);
  });

  it('edits $CODEX_HOME/config.toml, else ~/.codex/config.toml', () => {
    expect(codexConfigFile({ CODEX_HOME: '/h/cx' })).toBe('/h/cx/config.toml');
    expect(codexConfigFile({ HOME: '/home/u' })).toBe('/home/u/.codex/config.toml');
  });
});
