#!/usr/bin/env bash
# The stability proof of the browser tests (issue 12 acceptance): tests/web RUNS times in a row (default 10)
# while the rest of the suite runs beside it, again and again; it stops at the first failure. No reruns
# (-p no:rerunfailures; pyproject.toml has none either). A summary line goes to stdout and $LOG_DIR/summary.
#
#   tests/web/stability.sh [RUNS]        env: PY (.venv/bin/python), WEB_WORKERS (2, as `make test`),
#                                        BESIDE_WORKERS (1), LOG_DIR (test-artifacts/stability)
set -u
cd "$(dirname "$0")/../.."
RUNS=${1:-10}
PY=${PY:-.venv/bin/python}
WEB_WORKERS=${WEB_WORKERS:-2}
BESIDE_WORKERS=${BESIDE_WORKERS:-1}
LOG_DIR=${LOG_DIR:-test-artifacts/stability}
mkdir -p "$LOG_DIR"
rm -f "$LOG_DIR"/web-*.log "$LOG_DIR/beside.log"
export PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"

# The rest of the suite, over and over, in its own process group (stopped at the end).
setsid bash -c "while true; do \"$PY\" -m pytest -q -p no:rerunfailures --ignore=tests/web -n $BESIDE_WORKERS; \
  echo \"=== beside run exit \$? at \$(date -u +%H:%M:%S)\"; done" >>"$LOG_DIR/beside.log" 2>&1 &
beside=$!
trap 'kill -TERM -- -"$beside" 2>/dev/null' EXIT

start=$(date +%s)
passed=0
for run in $(seq 1 "$RUNS"); do
  t0=$(date +%s)
  if "$PY" -m pytest tests/web -q -p no:rerunfailures -n "$WEB_WORKERS" >"$LOG_DIR/web-$run.log" 2>&1; then
    passed=$((passed + 1))
    echo "run $run passed in $(( $(date +%s) - t0 )) s ($(tail -1 "$LOG_DIR/web-$run.log"))"
  else
    echo "run $run FAILED after $(( $(date +%s) - t0 )) s: see $LOG_DIR/web-$run.log"
    grep -E "^(FAILED|ERROR)" "$LOG_DIR/web-$run.log"
    break
  fi
done
wall=$(( $(date +%s) - start ))
beside_runs=$(grep -c "=== beside run exit" "$LOG_DIR/beside.log" || true)
summary="$(date -u +%Y-%m-%dT%H:%MZ) tests/web: $passed of $RUNS runs passed in a row (-n $WEB_WORKERS, no reruns), \
wall ${wall} s; the rest of the suite ran beside it (-n $BESIDE_WORKERS, $beside_runs complete runs)"
echo "$summary" | tee "$LOG_DIR/summary"
[ "$passed" -eq "$RUNS" ]
