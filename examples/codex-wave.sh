#!/usr/bin/env bash
# Launch a wave of Codex agents and record it for dispatch-watchdog (docs/codex.md, section 1):
# one `codex exec --json` per ticket, each row written once its thread id is known
# (`thread.started`, the first stdout line): agent codex, session_id, pid, transcript_path (the
# rollout), output_path (the --json stdout). Then watch it, e.g.
#   dispatch-watchdog --epic-id EPIC --action report      (or configure agents.adapter: process)
#
#   examples/codex-wave.sh EPIC TICKETS.tsv
#
# TICKETS.tsv: one "TICKET_ID<TAB>prompt" per line. Needs bash and jq.
# Environment: ONEX_STATE_DIR (default .onex_state), CODEX (default codex), CODEX_HOME (default ~/.codex).
set -euo pipefail

usage='usage: codex-wave.sh EPIC TICKETS.tsv'
EPIC=${1:?$usage}
TICKETS=${2:?$usage}
CODEX=${CODEX:-codex}
HOME_DIR=${CODEX_HOME:-$HOME/.codex}
mkdir -p "${ONEX_STATE_DIR:-.onex_state}/epics/$EPIC"
STATE=$(cd "${ONEX_STATE_DIR:-.onex_state}" && pwd)
OUT="$STATE/orchestrator/$EPIC/out"
mkdir -p "$OUT"
WAVE_AT=$(date -u +%Y-%m-%dT%H:%M:%SZ)
rows='[]'

while IFS=$'\t' read -r ticket prompt; do
  [ -n "$ticket" ] || continue
  task="$ticket-1"
  # Never --ephemeral: it writes no rollout to watch.
  "$CODEX" exec --json --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox "$prompt" \
    </dev/null >"$OUT/$task.jsonl" 2>"$OUT/$task.err" &
  pid=$!
  thread=''
  until [ -n "$thread" ]; do
    kill -0 "$pid" 2>/dev/null || { echo "codex for $ticket exited before thread.started: $(tail -3 "$OUT/$task.err")" >&2; break; }
    thread=$(head -1 "$OUT/$task.jsonl" 2>/dev/null | jq -r 'select(.type == "thread.started") | .thread_id' 2>/dev/null || true)
    [ -n "$thread" ] || sleep 0.1
  done
  [ -n "$thread" ] || continue
  # The rollout appears within about a second of the launch; without it the watchdog finds it by session_id.
  rollout=''
  for _ in $(seq 50); do
    rollout=$(find "$HOME_DIR/sessions" -name "rollout-*-$thread.jsonl" 2>/dev/null | head -1)
    [ -z "$rollout" ] || break
    sleep 0.1
  done
  rows=$(jq -c --arg t "$task" --arg k "$ticket" --arg sid "$thread" --argjson pid "$pid" --arg r "$rollout" --arg o "$OUT/$task.jsonl" \
    --arg at "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
    '. + [{task_id: $t, ticket_id: $k, status: "in_progress", agent: "codex", session_id: $sid, pid: $pid, output_path: $o, dispatched_at: $at}
          + (if $r != "" then {transcript_path: $r} else {} end)]' <<<"$rows")
  echo "[codex-wave] launched $task ($ticket) pid $pid thread $thread"
done <"$TICKETS"

# JSON is YAML: the state file, written whole and renamed into place.
jq -n --arg epic "$EPIC" --arg at "$WAVE_AT" --argjson tasks "$rows" \
  '{epic_id: $epic, current_wave: {wave_id: 1, dispatched_at: $at, tasks: $tasks}}' >"$STATE/epics/$EPIC/state.yaml.tmp"
mv "$STATE/epics/$EPIC/state.yaml.tmp" "$STATE/epics/$EPIC/state.yaml"
echo "[codex-wave] recorded $(jq length <<<"$rows") agents in $STATE/epics/$EPIC/state.yaml"
