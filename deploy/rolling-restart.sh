#!/bin/sh
# Restart the paohuzi processes one after the other, each only once the one before is ready again, so that
# nobody waits (docs/server.md "Rolling restart"): a stopping process hands its rooms to the others and nginx
# sends its players' reconnects to a live one (deploy/nginx/paohuzi.conf: max_fails=0, proxy_next_upstream).
#   deploy/rolling-restart.sh 8001 8002 8003
set -eu
[ $# -gt 0 ] || { echo "usage: $0 PORT..."; exit 2; }
for port in "$@"; do
    systemctl restart "paohuzi@$port"      # Type=notify: returns once the new process said READY=1
    tries=0
    until curl -fsS -o /dev/null "http://127.0.0.1:$port/readyz"; do   # its database (and Redis) answer
        tries=$((tries + 1))
        [ "$tries" -lt 300 ] || { echo "paohuzi@$port not ready after 60 s: stopping here"; exit 1; }
        sleep 0.2
    done
    echo "paohuzi@$port restarted and ready"
done
