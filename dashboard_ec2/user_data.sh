#!/bin/bash
# Dashboard boot: Nginx, the site from its S3 asset, the API key and admin password from Secrets Manager.
# Upper-case names between double at-signs are filled by stacks/leaderboard/dashboard.py.
set -euo pipefail
exec > >(tee /var/log/leaderboard-boot.log) 2>&1

dnf install -y nginx
install -d -m 755 /opt/leaderboard
aws s3 cp "@@SITE_S3_URL@@" /tmp/dashboard.zip --region "@@REGION@@"
python3 -m zipfile -e /tmp/dashboard.zip /opt/leaderboard/
rm -f /tmp/dashboard.zip

# Secrets go through root-only files and stdin, never a command line.
umask 077
secrets=$(mktemp -d)
secret() { aws secretsmanager get-secret-value --region "@@REGION@@" --secret-id "$1" --query SecretString --output text; }
secret "@@API_KEY_SECRET_ARN@@" > "$secrets/api-key"
secret "@@ADMIN_SECRET_ARN@@" | python3 -c 'import json, sys; print(json.load(sys.stdin)["password"], end="")' > "$secrets/admin"

cd /opt/leaderboard
python3 render.py --out /etc/nginx/nginx.conf \
  LISTEN_PORT=80 SITE_ROOT=/opt/leaderboard/site PREFIX_DIR=/var/lib/nginx PID_FILE=/run/nginx.pid \
  RESOLVER=169.254.169.253 API_UPSTREAM="https://@@API_HOST@@" API_BASE_PATH="/@@API_STAGE@@" \
  API_HOST="@@API_HOST@@" API_KEY="@$secrets/api-key" HTPASSWD_FILE=/etc/nginx/leaderboard.htpasswd
python3 render.py --htpasswd /etc/nginx/leaderboard.htpasswd --admin-user admin --admin-password-file "$secrets/admin"
rm -rf "$secrets"
umask 022

# The API's URL reaches the page at boot; the page itself calls the same-origin /api/ proxy.
python3 render.py --site-config /opt/leaderboard/site/config.json --stage "@@STAGE@@" --api-url "@@API_URL@@"

nginx -t
systemctl enable --now nginx
