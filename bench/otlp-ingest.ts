// The OTLP receiver's ingest rate (issue 22 item 5): a real watchdog (`--otlp`, the loop running
// over a wave whose rows name the sessions) takes Claude Code-shaped log records as protobuf
// requests of 512 (the SDK's default batch), posted by this process; its own CPU time (from
// /proc) is what "on one core" counts. Baseline in the same run: the same events as transcript
// lines, read cold by the transcript observer. Figures: records per CPU second, and the ratio.
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import protobuf from 'protobufjs/light.js';
import { stringify } from 'yaml';
import type { Task } from '../src/contracts/state-file.js';
import { StatePaths } from '../src/files/paths.js';
import { createClaudeObserver } from '../src/agents/claude-code/read/claude-observer.js';
import { OTLP_DESCRIPTOR } from '../src/observe/parse/otlp-proto.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const cli = path.join(root, 'bin', 'dispatch-watchdog.js');
const SESSIONS = 50;
const BATCH = 512;
const GOAL = 20_000;

type Attr = { key: string; value: { stringValue?: string; intValue?: number } };
const s = (key: string, v: string): Attr => ({ key, value: { stringValue: v } });

/** One session's events as [name, attributes] in order: a prompt, then Bash call cycles. */
function sessionEvents(sid: string, n: number, t0: number): { name: string; atMs: number; attrs: Attr[]; toolUseId?: string }[] {
  const out = [];
  const common = (name: string, seq: number, atMs: number) => [
    s('host.name', 'bench-host'),
    s('user.id', 'f'.repeat(64)),
    s('session.id', sid),
    s('terminal.type', 'xterm'),
    s('event.name', name),
    s('event.timestamp', new Date(atMs).toISOString()),
    { key: 'event.sequence', value: { intValue: seq } },
    s('prompt.id', `${sid}-p`),
  ];
  for (let i = 0; i < n; i++) {
    const atMs = t0 + i * 100;
    const k = i % 3;
    const id = `toolu_${sid}_${Math.floor(i / 3)}`;
    if (i === 0) out.push({ name: 'user_prompt', atMs, attrs: [...common('user_prompt', i, atMs), s('prompt_length', '21'), s('prompt', '<REDACTED>')] });
    else if (k === 1)
      out.push({
        name: 'tool_decision',
        atMs,
        toolUseId: id,
        attrs: [
          ...common('tool_decision', i, atMs),
          s('decision', 'accept'),
          s('source', 'config'),
          s('tool_name', 'Bash'),
          s('tool_use_id', id),
          s('tool_parameters', JSON.stringify({ bash_command: 'npm', full_command: `npm test -- file-${i}.ts`, description: 'run the tests' })),
        ],
      });
    else if (k === 2)
      out.push({
        name: 'api_request',
        atMs,
        attrs: [
          ...common('api_request', i, atMs),
          s('model', 'claude-opus-4-8'),
          { key: 'input_tokens', value: { intValue: 1200 } },
          { key: 'output_tokens', value: { intValue: 80 } },
          { key: 'duration_ms', value: { intValue: 900 } },
        ],
      });
    else
      out.push({
        name: 'tool_result',
        atMs,
        toolUseId: `toolu_${sid}_${Math.floor(i / 3) - 1}`,
        attrs: [
          ...common('tool_result', i, atMs),
          s('tool_name', 'Bash'),
          s('tool_use_id', `toolu_${sid}_${Math.floor(i / 3) - 1}`),
          s('success', 'true'),
          s('duration_ms', '700'),
        ],
      });
  }
  return out;
}

/** The same events as transcript lines (assistant tool_use, user tool_result, a prompt). */
function transcriptOf(sid: string, events: ReturnType<typeof sessionEvents>): string {
  return (
    events
      .map((e) => {
        const ts = new Date(e.atMs).toISOString();
        if (e.name === 'tool_decision')
          return JSON.stringify({
            type: 'assistant',
            timestamp: ts,
            sessionId: sid,
            uuid: `${e.toolUseId}-a`,
            message: {
              id: `msg_${e.toolUseId}`,
              role: 'assistant',
              content: [{ type: 'tool_use', id: e.toolUseId, name: 'Bash', input: { command: 'npm test', description: 'run the tests' } }],
            },
          });
        if (e.name === 'tool_result')
          return JSON.stringify({
            type: 'user',
            timestamp: ts,
            sessionId: sid,
            uuid: `${e.toolUseId}-u`,
            message: { role: 'user', content: [{ tool_use_id: e.toolUseId, type: 'tool_result', content: 'ok' }] },
          });
        if (e.name === 'user_prompt')
          return JSON.stringify({ type: 'user', timestamp: ts, sessionId: sid, message: { role: 'user', content: 'build the project' } });
        return JSON.stringify({
          type: 'assistant',
          timestamp: ts,
          sessionId: sid,
          message: { id: `msg_${e.atMs}`, role: 'assistant', content: [{ type: 'text', text: 'running' }] },
        });
      })
      .join('\n') + '\n'
  );
}

/** utime + stime of a process, in CPU seconds. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

export async function benchOtlpIngest(records = 200_000): Promise<{ name: string; lines: string[]; met: boolean }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dw-bench-otlp-'));
  const child = { pid: 0, kill: (_s?: string) => undefined as unknown };
  try {
    const t0 = Date.now() - 60_000;
    const perSession = Math.ceil(records / SESSIONS);
    const sids = Array.from({ length: SESSIONS }, (_, i) => `bench-session-${i}`);
    const events = sids.map((sid) => sessionEvents(sid, perSession, t0));
    // The requests, encoded before anything is timed: 512 records, interleaved across sessions.
    const Req = protobuf.Root.fromJSON(OTLP_DESCRIPTOR as protobuf.INamespace).lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest');
    const flat = events[0]!.flatMap((_, i) => events.map((e) => e[i]!)).filter(Boolean);
    const bodies: Uint8Array[] = [];
    for (let i = 0; i < flat.length; i += BATCH) {
      const logRecords = flat
        .slice(i, i + BATCH)
        .map((e) => ({ timeUnixNano: `${e.atMs}000000`, body: { stringValue: `claude_code.${e.name}` }, attributes: e.attrs }));
      bodies.push(
        Req.encode(
          Req.fromObject({
            resourceLogs: [
              {
                resource: { attributes: [s('service.name', 'claude-code'), s('host.name', 'bench-host')] },
                scopeLogs: [{ scope: { name: 'com.anthropic.claude_code.events' }, logRecords }],
              },
            ],
          }),
        ).finish(),
      );
    }
    const stateDir = path.join(dir, 'state');
    const epicDir = path.join(stateDir, 'epics', 'E-BENCH');
    mkdirSync(epicDir, { recursive: true });
    const tasks = sids.map((sid, i) => ({ task_id: `t${i}`, ticket_id: `P-${i}`, status: 'in_progress', session_id: sid }));
    writeFileSync(path.join(epicDir, 'state.yaml'), stringify({ current_wave: { wave_id: 1, dispatched_at: new Date(t0).toISOString(), tasks } }));
    const rest = new Date(Date.now() - 60_000);
    utimesSync(path.join(epicDir, 'state.yaml'), rest, rest);
    mkdirSync(path.join(dir, 'claude', 'projects'), { recursive: true });
    const w = spawn(
      process.execPath,
      [
        cli,
        '--epic-id',
        'E-BENCH',
        '--state-dir',
        stateDir,
        '--otlp',
        '127.0.0.1:0',
        '--check-interval',
        '1',
        '--timeout',
        '3600',
        '--action',
        'report',
        '--json',
      ],
      { env: { ...process.env, CLAUDE_CONFIG_DIR: path.join(dir, 'claude') }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    Object.assign(child, { pid: w.pid!, kill: (sig?: string) => w.kill((sig ?? 'SIGKILL') as NodeJS.Signals) });
    let err = '';
    w.stderr.on('data', (d) => (err += d));
    const port = await new Promise<number>((resolve, reject) => {
      const t = setInterval(() => {
        const m = /OTLP\/HTTP receiver on http:\/\/127\.0\.0\.1:(\d+)/.exec(err);
        if (m) clearInterval(t), resolve(Number(m[1]));
      }, 20);
      w.once('exit', () => (clearInterval(t), reject(new Error(`the watchdog exited: ${err}`))));
    });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 2 });
    const post = (body: Uint8Array) =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port,
            path: '/v1/logs',
            method: 'POST',
            agent,
            headers: { 'content-type': 'application/x-protobuf', 'content-length': body.length },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
    // Warm-up: one request per session's first events, then the loop's first checks.
    await post(bodies[0]!);
    await new Promise((r) => setTimeout(r, 2000));
    const cpu0 = cpuSeconds(w.pid!);
    const wall0 = performance.now();
    let refused = 0;
    // Two requests in flight at a time, as a Collector's exporter with two consumers would.
    let next = 1;
    const worker = async () => {
      while (next < bodies.length) {
        const code = await post(bodies[next++]!);
        if (code !== 200) refused++;
      }
    };
    await Promise.all([worker(), worker()]);
    const wallS = (performance.now() - wall0) / 1000;
    const cpuS = cpuSeconds(w.pid!) - cpu0;
    const ingested = flat.length - Math.min(flat.length, BATCH);
    agent.destroy();
    w.kill('SIGTERM');
    await new Promise((r) => w.once('exit', r));

    // Baseline: the same events appended to transcripts and read by the transcript observer as the
    // loop reads a growing transcript: in 20 rounds (a check after each), every record parsed once.
    const trDir = path.join(dir, 'transcripts');
    mkdirSync(trDir, { recursive: true });
    const ROUNDS = 20;
    const trTasks: Task[] = sids.map((sid, i) => {
      const file = path.join(trDir, `${sid}.jsonl`);
      writeFileSync(file, '');
      return { taskId: `t${i}`, ticketId: `P-${i}`, status: 'in_progress', statusClass: 'in_flight', transcriptPath: file, sessionId: sid };
    });
    const lines = sids.map((sid, i) => transcriptOf(sid, events[i]!).trimEnd().split('\n'));
    const observer = createClaudeObserver({ paths: new StatePaths(path.join(dir, 'tr-state')), isPersistent: false, env: {}, changeNotes: false });
    const check = async () => {
      await observer.beginCheck?.(Date.now());
      for (const t of trTasks) await observer.observe(t, Date.now());
    };
    await check();
    let trCpuS = 0;
    for (let r = 0; r < ROUNDS; r++) {
      const from = Math.floor((perSession * r) / ROUNDS);
      const to = Math.floor((perSession * (r + 1)) / ROUNDS);
      for (let i = 0; i < SESSIONS; i++) appendFileSync(trTasks[i]!.transcriptPath!, lines[i]!.slice(from, to).join('\n') + '\n');
      const c0 = process.cpuUsage();
      await check();
      const c = process.cpuUsage(c0);
      trCpuS += (c.user + c.system) / 1e6;
    }
    const trRate = flat.length / trCpuS;
    const rate = ingested / cpuS;
    const met = rate >= GOAL && refused === 0;
    return {
      name: `OTLP receiver ingest (issue 22 item 5): ${flat.length} Claude Code log records, ${SESSIONS} sessions, protobuf requests of ${BATCH}, the loop running`,
      lines: [
        `receiver: ${Math.round(rate).toLocaleString('en')} records per CPU second of the watchdog (${cpuS.toFixed(2)} CPU s for ${ingested} records; ${Math.round(ingested / wallS).toLocaleString('en')}/s wall; ${refused} refused) — goal ≥ ${GOAL.toLocaleString('en')}/s on one core: ${met ? 'met' : 'MISSED'}`,
        `baseline, the same events appended to transcripts and read by the loop's transcript observer (20 checks): ${Math.round(trRate).toLocaleString('en')} records per CPU second (${trCpuS.toFixed(2)} CPU s)`,
        `ratio receiver / transcript read: ${(rate / trRate).toFixed(2)}×`,
      ],
      met,
    };
  } finally {
    if (child.pid) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const r = await benchOtlpIngest(Number(process.argv[2] ?? 200_000));
  process.stdout.write(`${r.name}\n${r.lines.map((l) => `  ${l}`).join('\n')}\n`);
}
