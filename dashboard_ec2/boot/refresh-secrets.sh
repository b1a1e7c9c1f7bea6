#!/bin/bash
# At every boot (leaderboard-secrets.service, before Nginx) and on demand (key and password rotation run
# `systemctl restart leaderboard-secrets.service` through SSM Run Command): read the admin API key and the
# admin password from Secrets Manager, render nginx.conf and the htpasswd file, check them with `nginx -t`,
# and reload Nginx if it runs. Secrets go through root-only files, never a command line. If a secret cannot
# be read, Nginx keeps the configuration it has.
set -euo pipefail
root="${LEADERBOARD_BOOT_ROOT:-}"  # empty on EC2; a temporary root in tests/infra/test_first_boot.py
. "$root/etc/leaderboard/boot.env"
app="$root/opt/leaderboard"

# retry TRIES COMMAND...: until COMMAND succeeds, sleeping 2, 4, 8 ... (at most 60) seconds between tries.
retry() {
  local tries=$1 n=1 delay=2
  shift
  until "$@"; do
    [ "$n" -lt "$tries" ] || return 1
    echo "retry: '$*' failed (try $n of $tries), next in ${delay}s"
    sleep "$delay"
    n=$((n + 1))
    delay=$((delay * 2 > 60 ? 60 : delay * 2))
  done
}

umask 077
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
read_secret() {  # read_secret ARN FILE
  aws secretsmanager get-secret-value --region "$REGION" --secret-id "$1" --query SecretString --output text \
    >"$2.tmp" && mv "$2.tmp" "$2"
}
retry 6 read_secret "$ADMIN_KEY_SECRET_ARN" "$work/admin-key"
retry 6 read_secret "$ADMIN_PASSWORD_SECRET_ARN" "$work/password.json"
python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["password"], end="")' "$work/password.json" \
  >"$work/password"

mkdir -p "$root/etc/nginx" "$root/var/lib/nginx" "$root/var/log/nginx" "$root/run"
conf="$root/etc/nginx/nginx.conf"
# CloudFront is the only client the security group lets in, so X-Forwarded-For's last address is trusted.
# LIVE_REALTIME_URL: the Event API's realtime endpoint, the page's CSP's one other connect-src (empty: live off).
# /api/ reads through the edge when there is one (its paths are the API's: no stage path); else from the API.
edge=()
if [ -n "${EDGE_HOST:-}" ]; then
  edge=(EDGE_UPSTREAM="${EDGE_UPSTREAM:-https://$EDGE_HOST}" EDGE_HOST="$EDGE_HOST" EDGE_BASE_PATH=)
fi
python3 "$app/render.py" --out "$conf.new" "${edge[@]}" \
  LISTEN_PORT="$DASHBOARD_PORT" SITE_ROOT="$app/site" PREFIX_DIR="$root/var/lib/nginx" PID_FILE="$root/run/nginx.pid" \
  LOG_DIR="$root/var/log/nginx" \
  RESOLVER=169.254.169.253 API_UPSTREAM="$API_UPSTREAM" API_BASE_PATH="/$API_STAGE" API_HOST="$API_HOST" \
  API_KEY="@$work/admin-key" HTPASSWD_FILE="$root/etc/nginx/leaderboard.htpasswd" \
  CA_BUNDLE="$root/etc/pki/tls/certs/ca-bundle.crt" REAL_IP_FROM=0.0.0.0/0 \
  LIVE_REALTIME_URL="${LIVE_REALTIME_URL:-}"
python3 "$app/render.py" --htpasswd "$root/etc/nginx/leaderboard.htpasswd" --admin-user admin \
  --admin-password-file "$work/password"
nginx -t -q -c "$conf.new" -e "$root/var/log/nginx/error.log"
mv -f "$conf.new" "$conf"
if systemctl is-active --quiet nginx.service; then
  systemctl reload nginx.service
fi
echo "leaderboard-secrets: nginx.conf and htpasswd rendered from the current secrets"
