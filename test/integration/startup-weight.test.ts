// Startup weight (issue 18 item 5): a check never loads @linear/sdk (11.6 MB with graphql; only an
// escalation that reaches Linear needs it), nor the OpenTelemetry SDK unless OTEL_* asks for it,
// neither through the npm bin (dist/, ES modules) nor through the plugin's bundle/cli.cjs; the
// hook bundle loads node built-ins and nothing else.
// Every module load of the child is recorded by a preload: a resolve hook for ES modules, a wrap
// of Module._load for require(); each test first shows the recorder sees the SDK when it is loaded.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, REPO_ROOT } from '../helpers/cli.js';
import { tempDir } from '../helpers/temp-dir.js';

const EXAMPLE = ['--state-dir', path.join(REPO_ROOT, '.onex_state.example'), '--epic-id', 'PROJ-1000', '--now', '2026-04-02T10:10:00Z'];

/** Run node with a preload recording every module it loads; resolves to the ids and URLs, one per line. */
async function loadsOf(args: string[], input?: string, env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  const dir = tempDir();
  const log = path.join(dir, 'loads.log');
  const hooks = `import { appendFileSync } from 'node:fs';\nexport async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(${JSON.stringify(log)}, r.url + '\\n'); return r; }\n`;
  writeFileSync(path.join(dir, 'hooks.mjs'), hooks);
  writeFileSync(path.join(dir, 'esm.mjs'), `import { register } from 'node:module';\nregister(${JSON.stringify('file://' + path.join(dir, 'hooks.mjs'))});\n`);
  writeFileSync(
    path.join(dir, 'cjs.cjs'),
    `const M = require('node:module'); const { appendFileSync } = require('node:fs'); const load = M._load;\nM._load = function (id, ...rest) { appendFileSync(${JSON.stringify(log)}, id + '\\n'); return load.call(this, id, ...rest); };\n`,
  );
  writeFileSync(log, '');
  await new Promise<void>((resolve) => {
    const child = execFile(
      process.execPath,
      ['--import', path.join(dir, 'esm.mjs'), '--require', path.join(dir, 'cjs.cjs'), ...args],
      { cwd: dir, env: { ...process.env, CLAUDE_CONFIG_DIR: path.join(dir, 'no-claude'), ...env } },
      () => resolve(),
    );
    child.stdin!.end(input ?? '');
  });
  return readFileSync(log, 'utf8').split('\n').filter(Boolean);
}

const linear = (loads: string[]) => loads.filter((l) => /@linear[/\\]sdk|[/\\]graphql[/\\]/.test(l) || l === '@linear/sdk');

describe('startup weight', () => {
  it('the recorder sees @linear/sdk when something loads it, as an ES module or through require()', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'esm.mjs'), `await import(${JSON.stringify(path.join(REPO_ROOT, 'node_modules', '@linear', 'sdk', 'dist', 'index.mjs'))});\n`);
    writeFileSync(path.join(dir, 'cjs.cjs'), `require(${JSON.stringify(path.join(REPO_ROOT, 'node_modules', '@linear', 'sdk'))});\n`);
    expect(linear(await loadsOf([path.join(dir, 'esm.mjs')]))).not.toEqual([]);
    expect(linear(await loadsOf([path.join(dir, 'cjs.cjs')]))).not.toEqual([]);
  });

  it('a check through the npm bin (dist/) never loads @linear/sdk', async () => {
    const loads = await loadsOf([BIN, ...EXAMPLE]);
    expect(loads.some((l) => l.includes('dist/src/cli.js'))).toBe(true);
    expect(linear(loads)).toEqual([]);
  });

  it("a check through the plugin's bundle/cli.cjs never loads @linear/sdk", async () => {
    const loads = await loadsOf([path.join(REPO_ROOT, 'bundle', 'cli.cjs'), ...EXAMPLE]);
    expect(loads.some((l) => l.includes('bundle/cli.cjs'))).toBe(true);
    expect(linear(loads)).toEqual([]);
  });

  it('a watching check loads the OpenTelemetry SDK only when OTEL_* asks for telemetry, through the bin and the bundle', async () => {
    const otel = (loads: string[]) => loads.filter((l) => /@opentelemetry[/\\]/.test(l));
    for (const entry of [BIN, path.join(REPO_ROOT, 'bundle', 'cli.cjs')]) {
      const state = tempDir();
      mkdirSync(path.join(state, 'epics', 'E-1'), { recursive: true });
      writeFileSync(
        path.join(state, 'epics', 'E-1', 'state.yaml'),
        `current_wave: { wave_id: 1, tasks: [ { task_id: t1, ticket_id: ENG-1, status: completed } ] }\n`,
      );
      const args = [entry, '--state-dir', state, '--epic-id', 'E-1', '--once'];
      expect(otel(await loadsOf(args, '', { OTEL_EXPORTER_OTLP_ENDPOINT: '' })), entry).toEqual([]);
      // The recorder sees it when asked for (the endpoint refuses: nothing listens on port 9).
      expect(otel(await loadsOf(args, '', { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9', OTEL_EXPORTER_OTLP_TIMEOUT: '500' })), entry).not.toEqual([]);
    }
    // Four CLI starts, two of them loading the OTel SDK: ~10 s idle, past 30 s at load 20+ (a limit for a hang, not a speed check).
  }, 120_000);

  it('bundle/hook.cjs, recording a payload, loads node built-ins only', async () => {
    const state = tempDir();
    mkdirSync(path.join(state, 'activity'));
    const entry = path.join(REPO_ROOT, 'bundle', 'hook.cjs');
    const loads = await loadsOf([entry, '--state-dir', state], JSON.stringify({ hook_event_name: 'Stop', session_id: 'sess-1' }));
    expect(readFileSync(path.join(state, 'activity', 'sess-1.ndjson'), 'utf8')).toContain('"Stop"');
    const ours = loads.filter((l) => !l.startsWith('node:') && l !== entry && !l.endsWith('.mjs') && !l.endsWith('cjs.cjs') && l !== `file://${entry}`);
    expect(ours).toEqual([]);
  });
});
