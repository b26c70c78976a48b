#!/bin/bash
# Walk the recipe of docs/server.md ("The recipe: stock Debian 12") on this machine, end to end, as root:
# apt packages, the service user, a database role with a password, the venv, the env file (0600), two
# shared-mode processes, nginx on ports other than 80/443 with a self-signed certificate, a hand played in
# Chromium from a page on that port while each process is restarted in turn (no 5xx, reconnects timed),
# `paohuzi migrate`, a dump and its restore beside the live database, kept off the live Redis prefix.
#
#   sudo deploy/walk.sh                  # from the repository root; prints what it does and checks
#
# Where systemd is not PID 1 (a container, this project's test machine) the processes are started with the
# unit's ExecStart line by hand (and its LimitNOFILE by ulimit); the units are checked by systemd-analyze.
# Settings (environment): WALK_PORTS (default "8001 8002"), WALK_HTTP/WALK_HTTPS (8080/8443), WALK_PREFIX
# (the Redis prefix, default paohuzi), WALK_BROWSER_PYTHON (a Python with Playwright: .venv/bin/python),
# WALK_PURE=1 (install without compiling the accelerators: faster, slower play), WALK_SKIP_INSTALL=1 (keep
# the venv of an earlier walk: no rebuild). It drops and makes again
# the databases paohuzi and paohuzi_restored, so never run it on a machine that hosts a real deployment.
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
PORTS=${WALK_PORTS:-"8001 8002"}
HTTP=${WALK_HTTP:-8080}
HTTPS=${WALK_HTTPS:-8443}
PREFIX=${WALK_PREFIX:-paohuzi}
BROWSER_PY=${WALK_BROWSER_PYTHON:-$SRC/.venv/bin/python}
SRV=/srv/paohuzi
T0=$(date +%s)
step() { printf '\n== [%3ss] %s\n' "$(( $(date +%s) - T0 ))" "$*"; }
say() { printf '   %s\n' "$*"; }
fail() { printf 'WALK FAILED: %s\n' "$*"; exit 1; }
# The service user's environment: what systemd gives the unit (EnvironmentFile, LimitNOFILE, the user).
# runuser's PAM session (pam_limits) sets the soft open-files limit back to 1,024, so it is raised inside, to
# the unit's 65536 or the hard limit where a container caps it lower (this project's test machine: 20000).
as_service() { (set -a; . /etc/paohuzi.env; set +a; cd "$SRV" && exec runuser -u paohuzi -- /bin/sh -c \
  'ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)"; exec "$@"' sh "$@"); }
ready() { for _ in $(seq 1 300); do curl -fsS "http://127.0.0.1:$1/readyz" >/dev/null 2>&1 && return 0; sleep 0.1; done; return 1; }
start() {  # the unit's ExecStart (deploy/systemd/paohuzi@.service), in the background; its pid in $SRV/PORT.pid
  as_service "$SRV/venv/bin/paohuzi" serve --host 127.0.0.1 --port "$1" --forwarded-allow-ips 127.0.0.1 \
    >>"$SRV/log/$1.log" 2>&1 &
  echo $! >"$SRV/$1.pid"
}
server_pid() { pgrep -f -- "paohuzi serve --host 127.0.0.1 --port $1 " | while read -r p; do
  [ "$(stat -c %U "/proc/$p")" = paohuzi ] && echo "$p"; done | head -1; }
stop() {  # SIGTERM, as systemctl stop: the process hands its rooms over and exits 0
  local pid; pid=$(server_pid "$1")
  kill -TERM "$pid"; while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done
}

step "apt packages (Debian 12)"
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -q python3-venv python3-dev gcc postgresql redis-server nginx-light openssl curl >/dev/null
say "$(dpkg-query -W -f '${Package} ${Version}\n' python3-venv postgresql redis-server nginx-light | tr '\n' ';')"
pg_lsclusters -h | grep -q online || pg_ctlcluster 15 main start
redis-cli ping >/dev/null 2>&1 || (redis-server --daemonize yes >/dev/null)

step "leftovers of an earlier walk removed (processes, databases, the site)"
for port in $PORTS; do [ -n "$(server_pid "$port")" ] && stop "$port"; rm -f "$SRV/$port.pid"; done
runuser -u postgres -- dropdb --if-exists paohuzi_restored
runuser -u postgres -- dropdb --if-exists paohuzi
rm -f /etc/nginx/sites-enabled/paohuzi
redis-cli --scan --pattern "$PREFIX:*" | xargs -r redis-cli del >/dev/null

step "the service user"
id paohuzi >/dev/null 2>&1 || useradd --system --home-dir "$SRV" --create-home --shell /usr/sbin/nologin paohuzi
install -d -o paohuzi -g paohuzi -m 0750 "$SRV"
install -d -o paohuzi -g paohuzi -m 0750 "$SRV/log"
say "$(id paohuzi)"

step "PostgreSQL: a role with a password, its database"
PASSWORD=$(openssl rand -hex 16)
if runuser -u postgres -- psql -tAc "SELECT 1 FROM pg_roles WHERE rolname='paohuzi'" | grep -q 1; then
  runuser -u postgres -- psql -q -c "ALTER ROLE paohuzi LOGIN PASSWORD '$PASSWORD'"
else
  runuser -u postgres -- psql -q -c "CREATE ROLE paohuzi LOGIN PASSWORD '$PASSWORD'"
fi
runuser -u postgres -- createdb -O paohuzi paohuzi
say "role paohuzi, database paohuzi (owner paohuzi); pg_hba: $(runuser -u postgres -- psql -tAc \
  "SELECT string_agg(DISTINCT auth_method, ',') FROM pg_hba_file_rules WHERE type='host'")"

step "the venv: pip install '.[server]' (root-owned: the service cannot change its own code)"
[ -x "$SRV/venv/bin/pip" ] || /usr/bin/python3 -m venv "$SRV/venv"
if [ "${WALK_SKIP_INSTALL:-0}" = 1 ] && [ -x "$SRV/venv/bin/paohuzi" ]; then
  say "WALK_SKIP_INSTALL=1: the venv of an earlier walk is used as it is"
else
if [ "${WALK_PURE:-0}" = 1 ]; then export PAOHUZI_PURE_BUILD=1; fi
BUILD=$(mktemp -d); cp -r "$SRC/pyproject.toml" "$SRC/setup.py" "$SRC/README.md" "$SRC/src" "$BUILD/"
find "$BUILD/src" -name '*.so' -delete; find "$BUILD/src" -name __pycache__ -prune -exec rm -rf {} +
"$SRV/venv/bin/pip" install -q --upgrade pip 2>&1 | grep -v "^WARNING: Location" || true
"$SRV/venv/bin/pip" install -q "$BUILD[server]" 2>&1 | grep -v "^WARNING: Location" || true
rm -rf "$BUILD"
fi
say "$("$SRV/venv/bin/pip" show paohuzi | grep -E '^(Name|Version|Location)' | tr '\n' ' ')"
say "compiled accelerators: $(find "$SRV/venv/lib" -path '*paohuzi/_accel*.so' | wc -l) extension modules"

step "the env file: /etc/paohuzi.env, 0600 root (systemd reads it before it drops to the service user)"
install -m 0600 -o root -g root "$SRC/deploy/systemd/paohuzi.env" /etc/paohuzi.env
sed -i -e "s|^PAOHUZI_DATABASE_URL=.*|PAOHUZI_DATABASE_URL=postgresql://paohuzi:$PASSWORD@127.0.0.1:5432/paohuzi|" \
  -e "s|^PAOHUZI_ALLOW_ORIGINS=.*|PAOHUZI_ALLOW_ORIGINS=https://localhost:$HTTPS|" \
  -e "s|^# PAOHUZI_REDIS_URL=|PAOHUZI_REDIS_URL=|" -e "s|^# PAOHUZI_REDIS_PREFIX=.*|PAOHUZI_REDIS_PREFIX=$PREFIX|" \
  /etc/paohuzi.env
say "$(stat -c '%a %U:%G %n' /etc/paohuzi.env); $(grep -c '^PAOHUZI_' /etc/paohuzi.env) settings"

step "the systemd units (systemd-analyze verify)"
install -m 0644 "$SRC"/deploy/systemd/paohuzi@.service "$SRC"/deploy/systemd/paohuzi-backup.service \
  "$SRC"/deploy/systemd/paohuzi-backup.timer /etc/systemd/system/
say "$(systemd-analyze verify /etc/systemd/system/paohuzi@8001.service /etc/systemd/system/paohuzi-backup.timer 2>&1 \
  | grep -v -e 'Cannot add dependency job' -e 'Failed to prepare filename' || true)ok"

step "paohuzi migrate --check, paohuzi migrate, paohuzi migrate --check"
as_service "$SRV/venv/bin/paohuzi" migrate --check | sed 's/^/   /' || say "(exit 1: migrations waiting)"
as_service "$SRV/venv/bin/paohuzi" migrate | sed -n '1,3p;$p' | sed 's/^/   /'
as_service "$SRV/venv/bin/paohuzi" migrate --check | sed 's/^/   /'

step "two processes in the shared mode (the unit's ExecStart, LimitNOFILE 65536)"
for port in $PORTS; do start "$port"; done
for port in $PORTS; do ready "$port" || fail "port $port not ready: $(tail -3 "$SRV/log/$port.log")"; done
for port in $PORTS; do
  say "$port: $(grep -o '"msg": "shared mode[^"]*"' "$SRV/log/$port.log" | tail -1); readyz $(curl -fsS "http://127.0.0.1:$port/readyz")"
  say "   open files limit: $(grep 'Max open files' "/proc/$(server_pid "$port")/limits" | awk '{print $4}')"
done
say "SQLite with Redis refused: $(cd /tmp && PAOHUZI_REDIS_URL=redis://127.0.0.1:6379/0 PAOHUZI_DATABASE_URL=sqlite:///x.db \
  "$SRV/venv/bin/paohuzi" serve --port 0 || true)"

step "nginx: the shipped site on :$HTTP/:$HTTPS, a self-signed certificate"
install -d -m 0755 /etc/ssl/paohuzi
openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj /CN=localhost -addext subjectAltName=DNS:localhost \
  -keyout /etc/ssl/paohuzi/key.pem -out /etc/ssl/paohuzi/cert.pem 2>/dev/null
chmod 0600 /etc/ssl/paohuzi/key.pem
UPSTREAMS=$(for port in $PORTS; do printf '    server 127.0.0.1:%s max_fails=0;\\n' "$port"; done)
sed -e "/^    server 127.0.0.1:800[0-9] max_fails=0;/d" \
  -e "s|^    zone paohuzi_upstream 64k;|&\n$UPSTREAMS|" \
  -e "s|listen 80;|listen $HTTP;|; s|listen \[::\]:80;|listen [::]:$HTTP;|" \
  -e "s|listen 443 ssl http2;|listen $HTTPS ssl http2;|; s|listen \[::\]:443 ssl http2;|listen [::]:$HTTPS ssl http2;|" \
  -e "s|set \$paohuzi_tls_port \"\";|set \$paohuzi_tls_port \":$HTTPS\";|" \
  -e "s|play.example|localhost|g" \
  -e "s|/etc/letsencrypt/live/localhost/fullchain.pem|/etc/ssl/paohuzi/cert.pem|; s|/etc/letsencrypt/live/localhost/privkey.pem|/etc/ssl/paohuzi/key.pem|" \
  "$SRC/deploy/nginx/paohuzi.conf" >/etc/nginx/sites-available/paohuzi
ln -sf ../sites-available/paohuzi /etc/nginx/sites-enabled/paohuzi
nginx -t 2>&1 | sed 's/^/   /'
if [ -s /run/nginx.pid ] && kill -0 "$(cat /run/nginx.pid)" 2>/dev/null; then NGINX_WAS_UP=1; nginx -s reload; else nginx; fi
for _ in $(seq 1 100); do curl -ksf "https://localhost:$HTTPS/healthz" >/dev/null && break; sleep 0.1; done
NGINX_STARTED=$([ -n "${NGINX_WAS_UP:-}" ] && echo 0 || echo 1)
: >/var/log/nginx/paohuzi.access.log
say "GET https://localhost:$HTTPS/: $(curl -ksS -o /dev/null -w '%{http_code}' "https://localhost:$HTTPS/"), \
$(curl -ksSI "https://localhost:$HTTPS/" | grep -i -e '^server:' | tr -d '\r')"
say "CSP $(curl -ksSI "https://localhost:$HTTPS/" | grep -io "connect-src[^;]*")"
say "redirect: $(curl -sS -o /dev/null -w '%{http_code} %{redirect_url}' "http://localhost:$HTTP/a?b=1")"
say "/metrics from here: $(curl -ksS -o /dev/null -w '%{http_code}' "https://localhost:$HTTPS/metrics")"

step "Chromium plays a match from https://localhost:$HTTPS/ while each process is restarted in turn"
MARK=$(mktemp -u); OUT=$(mktemp)
"$BROWSER_PY" "$SRC/deploy/walk_browser.py" "https://localhost:$HTTPS" "$MARK" >"$OUT" 2>&1 &
BROWSER=$!
for _ in $(seq 1 600); do [ -s "$MARK" ] && break; kill -0 $BROWSER 2>/dev/null || break; sleep 0.1; done
[ -s "$MARK" ] || fail "the browser was not dealt a hand: $(cat "$OUT")"
say "dealt hand $(cat "$MARK")"
for port in $PORTS; do  # the documented restart loop: one process, wait for /readyz, the next
  t=$EPOCHREALTIME; stop "$port"; start "$port"; ready "$port" || fail "$port not ready after restart"
  say "restarted $port: stopped, started and ready again in $(python3 -c "print(round($EPOCHREALTIME - $t, 2))") s"
done
wait $BROWSER || fail "browser: $(cat "$OUT")"
say "load average meanwhile: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"
say "browser: $(tail -1 "$OUT")"
python3 - "$(tail -1 "$OUT")" <<'EOF' || fail "reconnects"
import json, sys
r = json.loads(sys.argv[1])
assert r["overs"] == 2 and not r["csp_violations"], r
assert all(ms < 1000 for ms in r["reconnects"]), r["reconnects"]
print(f"   match played: 2 hands, {r['frames']} frames, {len(r['closes'])} websocket closes {r['closes']},"
      f" reconnected in {r['reconnects']} ms, no CSP violation")
EOF
STATUSES=$(awk '{print $7}' /var/log/nginx/paohuzi.access.log | sort | uniq -c | awk '{printf "%s: %s  ", $2, $1}')
say "nginx answered (status: count): $STATUSES"
say "tries refused by a restarting process and passed on: $(grep -c 'upstream_status="502, ' /var/log/nginx/paohuzi.access.log || true)"
! awk '{print $7}' /var/log/nginx/paohuzi.access.log | grep -q '^5' || fail "a client saw a 5xx"

step "backup: pg_dump -Fc (what paohuzi-backup.service runs), restore beside the live database"
install -d -o postgres -g postgres -m 0700 /var/backups/paohuzi
DUMP=/var/backups/paohuzi/paohuzi-$(date +%F).dump
runuser -u postgres -- pg_dump -Fc -f "$DUMP" paohuzi
say "$(ls -l "$DUMP" | awk '{print $1, $3, $5, $9}')"
runuser -u postgres -- createdb -O paohuzi paohuzi_restored
runuser -u postgres -- pg_restore --no-owner --role=paohuzi -d paohuzi_restored "$DUMP"
count() { runuser -u postgres -- psql -tA -d "$1" -c "SELECT (SELECT count(*) FROM hands) || ' hands, ' || (SELECT count(*) FROM actions) || ' actions'"; }
say "live: $(count paohuzi); restored: $(count paohuzi_restored)"
KEYS_BEFORE=$(redis-cli --scan --pattern "$PREFIX:*" | wc -l)
RESTORED_PORT=$(( ${PORTS%% *} + 100 ))
(set -a; . /etc/paohuzi.env; set +a
 export PAOHUZI_REDIS_URL= PAOHUZI_DATABASE_URL="postgresql://paohuzi:$PASSWORD@127.0.0.1:5432/paohuzi_restored"
 cd "$SRV" && exec runuser -u paohuzi -- "$SRV/venv/bin/paohuzi" serve --host 127.0.0.1 --port "$RESTORED_PORT") \
 >"$SRV/log/restored.log" 2>&1 &
RESTORED=$!
ready "$RESTORED_PORT" || fail "the restored copy did not start: $(tail -3 "$SRV/log/restored.log")"
say "restored copy on :$RESTORED_PORT: $(grep -o '"msg": "one process mode[^"]*"' "$SRV/log/restored.log")"
say "its readyz: $(curl -fsS "http://127.0.0.1:$RESTORED_PORT/readyz")"
kill -TERM "$(pgrep -P $RESTORED || echo $RESTORED)"; wait $RESTORED || true
say "live Redis prefix '$PREFIX': $KEYS_BEFORE keys before the copy ran, $(redis-cli --scan --pattern "$PREFIX:*" | wc -l) after; the copy ran without Redis (one process mode), so it joined nothing"

step "done: stopping the processes and the site"
for port in $PORTS; do stop "$port"; rm -f "$SRV/$port.pid"; done
rm -f /etc/nginx/sites-enabled/paohuzi
if [ "$NGINX_STARTED" = 1 ]; then nginx -s quit; else nginx -s reload; fi  # as it was before the walk
say "walk passed in $(( $(date +%s) - T0 )) s"
