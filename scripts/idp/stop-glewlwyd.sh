#!/usr/bin/env bash
# Stops the glewlwyd that scripts/idp/start-glewlwyd.sh started for this state directory
# (${MSAL_IDP_DIR:-<repo>/.idp}), by the PID in its PID file, and only if that process is still
# that glewlwyd. Leaves the state files for inspection (the next start replaces them).
set -euo pipefail

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
state_dir=${MSAL_IDP_DIR:-$repo_root/.idp}
pid_file=$state_dir/glewlwyd.pid
conf_file=$state_dir/glewlwyd.conf

log() { printf 'stop-glewlwyd: %s\n' "$*" >&2; }

if [[ ${MSAL_IDP_LOCK_HELD:-} != 1 && -d $state_dir ]]; then
    exec 9>"$state_dir/lock"
    flock -w 120 9 || {
        log "error: another start or stop holds $state_dir/lock for more than 120 s"
        exit 1
    }
fi

if [[ ! -f $pid_file ]]; then
    log "not running (no $pid_file)"
    exit 0
fi
pid=$(<"$pid_file")
cmdline=""
if [[ $pid =~ ^[0-9]+$ && -r /proc/$pid/cmdline ]]; then
    cmdline=$(tr '\0' ' ' <"/proc/$pid/cmdline" || true)
fi
if [[ $cmdline != *"--config-file=$conf_file "* ]]; then
    log "not running (pid '$pid' from $pid_file is not our glewlwyd); removing the stale PID file"
    rm -f "$pid_file" "$state_dir/env"
    exit 0
fi

kill -TERM "$pid"
# Bounded wait: 5 s for a clean exit, then SIGKILL.
for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
done
if kill -0 "$pid" 2>/dev/null; then
    log "pid $pid ignored SIGTERM for 5 s; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    # libfaketime removes its shared memory and semaphore (named by the PID) at a normal exit only.
    rm -f "/dev/shm/faketime_shm_$pid" "/dev/shm/sem.faketime_sem_$pid"
fi
rm -f "$pid_file" "$state_dir/env"
log "stopped glewlwyd (pid $pid)"
