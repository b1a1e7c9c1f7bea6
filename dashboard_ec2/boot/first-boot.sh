# The first boot after the site is fetched. Sourced by the EC2 user data (dashboard_ec2/user_data.sh): it
# uses that script's settings, `root`, `retry`, `signal`, `die` and error trap (a failing command fails the
# boot with the current `step` as its reason). Later boots only run leaderboard-secrets.service.

step="creating a swap file"  # dnf on 0.5 GiB next to the SSM agent can be OOM-killed; AL2023 has no swap
if [ ! -e "$root/swapfile" ]; then
  dd if=/dev/zero of="$root/swapfile" bs=1M count=1024 status=none  # written out: swapon refuses sparse files
  chmod 600 "$root/swapfile"
  mkswap "$root/swapfile" >/dev/null
  swapon "$root/swapfile"
  echo "/swapfile none swap defaults 0 0" >>"$root/etc/fstab"
fi

step="installing packages"  # one dnf call (its memory is the boot's peak): Nginx, logrotate, CloudWatch agent
retry 5 dnf install -y nginx logrotate amazon-cloudwatch-agent

step="rotating Nginx's logs"
# Ours replaces the package's file for the same logs (/var/log/nginx): one rule per file, nothing rotated twice.
install -d -m 755 "$root/etc/logrotate.d"
install -m 644 "$root/opt/leaderboard/boot/logrotate-nginx" "$root/etc/logrotate.d/nginx"
systemctl enable logrotate.timer  # AL2023 has no cron: the timer runs logrotate daily
systemctl start logrotate.timer

step="configuring the CloudWatch agent"
# Nginx's logs to the stack's two log groups (their retention is the stage's), one stream per instance: they
# outlive the instance. Only the logs section: no metrics, no other permission than writing these two groups.
cwagent="$root/opt/aws/amazon-cloudwatch-agent"
cat >"$root/etc/leaderboard/cloudwatch-agent.json" <<AGENT
{
  "agent": {"region": "$REGION"},
  "logs": {
    "logs_collected": {
      "files": {
        "collect_list": [
          {"file_path": "/var/log/nginx/access.log", "log_group_name": "$ACCESS_LOG_GROUP",
           "log_stream_name": "{instance_id}"},
          {"file_path": "/var/log/nginx/error.log", "log_group_name": "$ERROR_LOG_GROUP",
           "log_stream_name": "{instance_id}"}
        ]
      }
    }
  }
}
AGENT
# fetch-config checks the file and keeps it as the agent's configuration for this and every later boot.
"$cwagent/bin/amazon-cloudwatch-agent-ctl" -a fetch-config -m ec2 -c "file:$root/etc/leaderboard/cloudwatch-agent.json"

step="installing the secrets unit"
install -d -m 755 "$root/etc/systemd/system"
install -m 644 "$root/opt/leaderboard/boot/leaderboard-secrets.service" "$root/etc/systemd/system/"
systemctl daemon-reload
systemctl enable leaderboard-secrets.service nginx.service

step="writing the site's config.json"
# The API's URL reaches the page; the page itself calls the same-origin /api/ proxy.
python3 "$root/opt/leaderboard/render.py" --site-config "$root/opt/leaderboard/site/config.json" \
  --stage "$STAGE" --api-url "$API_URL"

step="reading the secrets into nginx.conf"
systemctl start leaderboard-secrets.service

step="starting nginx"
systemctl start nginx.service

step="starting the CloudWatch agent"
systemctl enable amazon-cloudwatch-agent.service  # systemd starts it at every later boot
systemctl restart amazon-cloudwatch-agent.service

step="checking the dashboard"
dashboard_serves_the_site() {
  local page
  page=$(curl -fsS --max-time 5 "http://127.0.0.1:$DASHBOARD_PORT/") && [[ "$page" == *"<html"* ]]
}
retry 5 dashboard_serves_the_site || die "no dashboard page from Nginx on port $DASHBOARD_PORT"

step="checking the API through /api/"
# With an edge, /api/ reads through it (CloudFront in front of the API): its answer carries CloudFront's X-Cache
# header ("Miss from cloudfront"), which neither the regional API nor Nginx adds, so a 200 without it did not come
# through the edge.
api_answer=""
api_headers=$(mktemp)
api_answers_through_the_proxy() {
  api_answer=$(curl -sS --max-time 10 -o /dev/null -D "$api_headers" -w '%{http_code}' \
    "http://127.0.0.1:$DASHBOARD_PORT/api/leaderboards" 2>/dev/null) || true
  [ "$api_answer" = 200 ] || return 1
  if [ -n "$EDGE_HOST" ] && ! grep -qi '^x-cache:' "$api_headers"; then
    api_answer="200 (no X-Cache)"
    return 1
  fi
}
retry 8 api_answers_through_the_proxy ||
  die "/api/leaderboards answered ${api_answer:-nothing}, not 200${EDGE_HOST:+ from the edge}"
cache=$(grep -i '^x-cache:' "$api_headers" | tr -d '\r' || true)
rm -f "$api_headers"

signal SUCCESS
echo "Dashboard ready: Nginx serves the site and /api/ reaches the API${EDGE_HOST:+ through the edge $EDGE_HOST (${cache})}"
