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

secret() { aws secretsmanager get-secret-value --region "@@REGION@@" --secret-id "$1" --query SecretString --output text; }
API_KEY=$(secret "@@API_KEY_SECRET_ARN@@")
ADMIN_PASSWORD=$(secret "@@ADMIN_SECRET_ARN@@" | python3 -c 'import json, sys; print(json.load(sys.stdin)["password"])')

cd /opt/leaderboard
python3 render.py --out /etc/nginx/nginx.conf \
  LISTEN_PORT=80 SITE_ROOT=/opt/leaderboard/site PREFIX_DIR=/var/lib/nginx RESOLVER=169.254.169.253 \
  API_UPSTREAM="https://@@API_HOST@@" API_BASE_PATH="/@@API_STAGE@@" API_HOST="@@API_HOST@@" \
  API_KEY="$API_KEY" HTPASSWD_FILE=/etc/nginx/leaderboard.htpasswd
python3 -c 'import sys; from render import write_htpasswd; write_htpasswd(*sys.argv[1:])' \
  /etc/nginx/leaderboard.htpasswd admin "$ADMIN_PASSWORD"
unset API_KEY ADMIN_PASSWORD
# The config holds the API key: readable by root (Nginx's master) and the worker's group only.
chown root:nginx /etc/nginx/nginx.conf /etc/nginx/leaderboard.htpasswd
chmod 640 /etc/nginx/nginx.conf /etc/nginx/leaderboard.htpasswd

# The API's URL reaches the page at boot; the page itself calls the same-origin /api/ proxy.
cat > /opt/leaderboard/site/config.json <<JSON
{"apiBase": "/api", "adminBase": "/admin-api", "stage": "@@STAGE@@", "apiUrl": "@@API_URL@@"}
JSON

nginx -t
systemctl enable --now nginx
