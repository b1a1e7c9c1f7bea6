#!/bin/bash
# Dashboard first boot (EC2 user data, runs once). It fetches the site asset, which carries the rest of the
# boot (boot/first-boot.sh) and the secrets unit that every later boot runs, and it signals CloudFormation:
# SUCCESS only once Nginx serves the dashboard and /api/ reaches the API through it (through the edge, when
# there is one: EDGE_HOST is then CloudFront's name, empty otherwise), FAILURE with the reason
# otherwise (the stack then rolls back). Upper-case names between double at-signs are filled by
# stacks/leaderboard/dashboard.py.
set -Eeuo pipefail
root="${LEADERBOARD_BOOT_ROOT:-}"  # empty on EC2; a temporary root in tests/infra/test_first_boot.py
install -d -m 755 "$root/etc/leaderboard" "$root/opt/leaderboard" "$root/var/log"
exec > >(tee -a "$root/var/log/leaderboard-boot.log") 2>&1

# Settings of this boot and of every later one (boot/refresh-secrets.sh reads them too).
cat > "$root/etc/leaderboard/boot.env" <<'SETTINGS'
REGION="@@REGION@@"
STACK_NAME="@@STACK_NAME@@"
INSTANCE_LOGICAL_ID="@@INSTANCE_LOGICAL_ID@@"
SITE_S3_URL="@@SITE_S3_URL@@"
ADMIN_KEY_SECRET_ARN="@@ADMIN_KEY_SECRET_ARN@@"
ADMIN_PASSWORD_SECRET_ARN="@@ADMIN_PASSWORD_SECRET_ARN@@"
API_UPSTREAM="@@API_UPSTREAM@@"
API_HOST="@@API_HOST@@"
API_STAGE="@@API_STAGE@@"
API_URL="@@API_URL@@"
EDGE_UPSTREAM="@@EDGE_UPSTREAM@@"
EDGE_HOST="@@EDGE_HOST@@"
LIVE_REALTIME_URL="@@LIVE_REALTIME_URL@@"
STAGE="@@STAGE@@"
DASHBOARD_PORT="@@DASHBOARD_PORT@@"
ACCESS_LOG_GROUP="@@ACCESS_LOG_GROUP@@"
ERROR_LOG_GROUP="@@ERROR_LOG_GROUP@@"
SETTINGS
. "$root/etc/leaderboard/boot.env"

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

# signal STATUS [REASON]: the resource signal of the instance's CreationPolicy. A signal carries no message,
# so the reason rides in its unique id (64 characters), which the stack's events show.
instance_id=$(cat "$root/var/lib/cloud/data/instance-id" 2>/dev/null || echo "instance")
signal() {
  local id="$instance_id${2:+: $2}"
  retry 5 aws cloudformation signal-resource --region "$REGION" --stack-name "$STACK_NAME" \
    --logical-resource-id "$INSTANCE_LOGICAL_ID" --unique-id "${id:0:64}" --status "$1"
}

die() {
  trap - ERR
  echo "BOOT FAILED: $1 (log: /var/log/leaderboard-boot.log)" | tee "$root/dev/console" 2>/dev/null || true
  signal FAILURE "$1" || echo "could not signal the failure either"
  exit 1
}
step="starting"
trap 'die "$step failed (exit $?)"' ERR

step="waiting for the network"
retry 10 aws sts get-caller-identity --region "$REGION" --cli-connect-timeout 5 --output text >/dev/null

step="fetching the site"
retry 5 aws s3 cp "$SITE_S3_URL" "$root/opt/leaderboard/site.zip" --region "$REGION" --only-show-errors
python3 -m zipfile -e "$root/opt/leaderboard/site.zip" "$root/opt/leaderboard/"
rm -f "$root/opt/leaderboard/site.zip"

step="first boot"
. "$root/opt/leaderboard/boot/first-boot.sh"
