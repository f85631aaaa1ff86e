#!/usr/bin/env bash
# A complete orchestrator for dispatch-watchdog in bash (docs/orchestrator.md, section 9): one
# `claude -p` per ticket, the epic state file kept up to date, and a loop on `dispatch-watchdog
# next` that stops stalled agents, launches their replacements with the prompt each request
# carries, and marks escalated tickets blocked.
#
#   examples/claude-p-loop.sh EPIC TICKETS.tsv [flags for next, e.g. --timeout 300]
#
# TICKETS.tsv: one "TICKET_ID<TAB>prompt" per line. Needs bash and jq.
# Environment: ONEX_STATE_DIR (default .onex_state), CLAUDE (default claude),
# DISPATCH_WATCHDOG (default dispatch-watchdog).
set -euo pipefail

usage='usage: claude-p-loop.sh EPIC TICKETS.tsv [flags for next]'
EPIC=${1:?$usage}
TICKETS=${2:?$usage}
shift 2
CLAUDE=${CLAUDE:-claude}
WATCHDOG=${DISPATCH_WATCHDOG:-dispatch-watchdog}
mkdir -p "${ONEX_STATE_DIR:-.onex_state}/epics/$EPIC"
STATE=$(cd "${ONEX_STATE_DIR:-.onex_state}" && pwd)
STATE_FILE="$STATE/epics/$EPIC/state.yaml"
# Our own bookkeeping (the watchdog never reads it): one file per row, its final status, its pid.
RUN="$STATE/orchestrator/$EPIC"
mkdir -p "$RUN/rows" "$RUN/status" "$RUN/pid" "$RUN/out" "$RUN/done"
WAVE_AT=$(date -u +%Y-%m-%dT%H:%M:%SZ)
log() { echo "[orchestrator] $*"; }
trap 'rmdir "$RUN/lock" 2>/dev/null || true' EXIT

# Rebuild state.yaml from the row files (JSON is YAML), atomically: temp file, then mv.
# Agents finishing in the background write it too, so a mkdir lock serialises the writers.
write_state() {
  until mkdir "$RUN/lock" 2>/dev/null; do sleep 0.02; done
  local tasks='[]' f task st
  for f in "$RUN"/rows/*.json; do
    [ -e "$f" ] || continue
    task=$(basename "$f" .json)
    task=${task#*-}
    st=in_progress
    [ -f "$RUN/status/$task" ] && st=$(cat "$RUN/status/$task")
    tasks=$(jq -c --slurpfile row "$f" --arg st "$st" '. + [$row[0] + {status: $st}]' <<<"$tasks")
  done
  jq -n --arg epic "$EPIC" --arg at "$WAVE_AT" --argjson tasks "$tasks" \
    '{epic_id: $epic, current_wave: {wave_id: 1, dispatched_at: $at, tasks: $tasks}}' >"$STATE_FILE.tmp"
  mv "$STATE_FILE.tmp" "$STATE_FILE"
  rmdir "$RUN/lock"
}

# A row's final status; the first one set wins (a row we cancelled stays cancelled when its agent dies).
finish() { [ -f "$RUN/status/$1" ] || echo "$2" >"$RUN/status/$1"; }

# Start `claude -p` for a task in the background (`claude --resume SESSION -p` with a 5th argument) and add its row.
# Each new session gets an id of ours (--session-id), recorded as the row's session_id: a stall of
# its link to the API can then be recovered by resuming that session, its context kept.
launch() {
  local task=$1 ticket=$2 prompt=$3 attempt=${4:-0} out="$RUN/out/$1.jsonl" seq session=${5:-} flags
  if [ -n "$session" ]; then flags=(--resume "$session"); else session=$(cat /proc/sys/kernel/random/uuid 2>/dev/null || uuidgen); flags=(--session-id "$session"); fi
  seq=$(printf '%04d' "$(find "$RUN/rows" -name '*.json' | wc -l)")
  (
    "$CLAUDE" "${flags[@]}" -p "$prompt" --output-format stream-json --verbose >"$out" 2>"$RUN/out/$task.err" </dev/null &
    echo $! >"$RUN/pid/$task.tmp" && mv "$RUN/pid/$task.tmp" "$RUN/pid/$task"
    if wait $!; then finish "$task" completed; else finish "$task" failed; fi
    write_state
  ) &
  until [ -f "$RUN/pid/$task" ]; do sleep 0.01; done
  jq -n --arg t "$task" --arg k "$ticket" --arg at "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --argjson pid "$(cat "$RUN/pid/$task")" \
    --arg out "$out" --argjson n "$attempt" --arg sid "$session" \
    '{task_id: $t, ticket_id: $k, dispatched_at: $at, pid: $pid, session_id: $sid, transcript_path: $out} + (if $n > 0 then {redispatch_count: $n} else {} end)' \
    >"$RUN/rows/$seq-$task.json"
  log "launched $task ($ticket) pid $(cat "$RUN/pid/$task")"
}

stop() { kill "$(cat "$RUN/pid/$1" 2>/dev/null)" 2>/dev/null || true; }

# Carry out one request (a JSON object) once: stop the agent, mark its row cancelled, and for a
# redispatch launch the replacement as the row `recovery_task_id`. The rows are the answer.
carry_out() {
  local req=$1 key kind task
  key=$(jq -r .key <<<"$req")
  [ -e "$RUN/done/${key//:/__}" ] && return 0
  kind=$(jq -r .kind <<<"$req")
  task=$(jq -r '.row_task_id // .task_id' <<<"$req")
  log "$kind $task: $(jq -r '.reason // ""' <<<"$req")"
  if [ "$kind" = nudge ] || [ "$kind" = reconcile ]; then
    # Never a stop: our rows already say how each agent ended (its exit), so acknowledge it.
    "$WATCHDOG" ack "$key" --state-dir "$STATE" >/dev/null
    touch "$RUN/done/${key//:/__}"
    return 0
  fi
  finish "$task" cancelled
  stop "$task"
  local session
  session=$(jq -r 'if .kind == "resume" then .session_id // "" else "" end' <<<"$req")
  if [ -n "$session" ]; then
    # A resume keeps the stalled session's context; without a session it is a fresh agent.
    launch "$(jq -r .recovery_task_id <<<"$req")" "$(jq -r .ticket_id <<<"$req")" "$(jq -r .resume_prompt <<<"$req")" "$(jq -r .redispatch_attempt <<<"$req")" "$session"
  elif [ "$kind" != cancel ]; then
    launch "$(jq -r .recovery_task_id <<<"$req")" "$(jq -r .ticket_id <<<"$req")" "$(jq -r .prompt <<<"$req")" "$(jq -r .redispatch_attempt <<<"$req")"
  fi
  write_state
  touch "$RUN/done/${key//:/__}"
}

# An escalated ticket: stop its agent, mark the row blocked, never relaunch it.
block() {
  log "escalated $2 ($1): friction note $3"
  echo blocked >"$RUN/status/$1"
  stop "$1"
  write_state
}

n=0
while IFS=$'\t' read -r ticket prompt; do
  [ -n "$ticket" ] || continue
  n=$((n + 1))
  launch "t$n" "$ticket" "$prompt"
done <"$TICKETS"
write_state

while :; do
  "$WATCHDOG" next --epic-id "$EPIC" --state-dir "$STATE" --json "$@" >"$RUN/next.json" &
  log "next pid $!"
  code=0
  wait $! || code=$?
  if [ $code -gt 128 ]; then
    # Killed: its journal makes a restart safe. What it printed before dying may already count
    # as told: act on a complete document first.
    log "next was killed (exit $code); running it again"
    jq -e .reason "$RUN/next.json" >/dev/null 2>&1 || continue
    code=$(jq -r .exit_code "$RUN/next.json")
  fi
  case $code in
    0 | 10 | 11 | 12 | 13) ;;
    *) echo "next failed (exit $code)" >&2; exit 1 ;;
  esac
  # Handle every list whatever the exit code. A pending request we never saw (our last run died
  # before reading it) is read from its file.
  while read -r req; do carry_out "$req"; done < <(jq -c '.requests[]' "$RUN/next.json")
  while read -r p; do
    [ -e "$RUN/done/${p//:/__}" ] || carry_out "$(cat "$STATE/$(jq -r --arg k "$p" '.pending[] | select(.key == $k) | .path' "$RUN/next.json")")"
  done < <(jq -r '.pending[].key' "$RUN/next.json")
  while read -r u; do log "unanswered past its deadline: $u"; done < <(jq -r '.unanswered[].key' "$RUN/next.json")
  while read -r a; do log "needs a person: $a"; done < <(jq -r '.attention[] | "\(.kind): \(.detail)"' "$RUN/next.json")
  while IFS=$'\t' read -r task ticket friction; do block "$task" "$ticket" "$friction"; done < <(jq -r '.escalations[] | [.task_id, .ticket_id, .friction_path] | @tsv' "$RUN/next.json")
  [ $code -eq 0 ] && break
done
log "wave complete: $(jq -r '[.current_wave.tasks[] | "\(.task_id)=\(.status)"] | join(" ")' "$STATE_FILE")"
