# Sourced by the nginx benchmarks (scripts/bench-nginx.sh, scripts/bench-suite.sh), after `set -euo pipefail`
# and with R set to the reqplan binary: starts nginx on loopback from a fresh temporary folder, stopped and
# removed when the script exits. It serves the folder's www/ (a 60-byte JSON file, small.json) and, with
# the echo module, /delay/10, /delay/20 and /delay/50 (echo_sleep) over:
#   PLAIN (default 18180): plain HTTP;  H2 (18443): HTTPS with HTTP/2;  H1S (18444): HTTPS with HTTP/1.1
# with a certificate for 127.0.0.1 from a test CA ($WORK/ca.pem). nginx logs the time it took for each
# /delay/50 request, in seconds with millisecond digits, to $WORK/delay50.log: the server's own view of
# that distribution, which scripts/bench-load.sh's rate section compares with reqplan's. TLS holds the reqplan options that
# trust that CA (--cacert when the build has it, else --insecure).
PLAIN=${PLAIN_PORT:-18180}
H2=${H2_PORT:-18443}
H1S=${H1S_PORT:-18444}
WORK=$(mktemp -d)
trap '[ -f "$WORK/nginx.pid" ] && kill "$(cat "$WORK/nginx.pid")" 2>/dev/null; rm -rf "$WORK"' EXIT

# A test CA and a certificate for 127.0.0.1 signed by it.
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=reqplan bench CA" \
  -keyout "$WORK/ca.key" -out "$WORK/ca.pem" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=127.0.0.1" -keyout "$WORK/server.key" -out "$WORK/server.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' > "$WORK/san.ext"
openssl x509 -req -in "$WORK/server.csr" -CA "$WORK/ca.pem" -CAkey "$WORK/ca.key" -CAcreateserial -days 2 \
  -extfile "$WORK/san.ext" -out "$WORK/server.pem" 2>/dev/null

mkdir -p "$WORK/www"
chmod 755 "$WORK"   # nginx's workers run as an unprivileged user when started by root
printf '{"id":1,"name":"reqplan","tags":["bench","nginx"],"ok":true}\n' > "$WORK/www/small.json"
ECHO_MODULE=$(ls /usr/lib/nginx/modules/ngx_http_echo_module.so)
cat > "$WORK/nginx.conf" <<CONF
load_module $ECHO_MODULE;
worker_processes 1;
daemon on;
pid $WORK/nginx.pid;
error_log $WORK/error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  log_format request_time '\$request_time';
  client_body_temp_path $WORK/tmp; proxy_temp_path $WORK/tmp; fastcgi_temp_path $WORK/tmp;
  uwsgi_temp_path $WORK/tmp; scgi_temp_path $WORK/tmp;
  keepalive_requests 1000000;
  default_type application/json;
  ssl_certificate $WORK/server.pem;
  ssl_certificate_key $WORK/server.key;
  server {
    listen 127.0.0.1:$PLAIN;
    listen 127.0.0.1:$H2 ssl http2;
    root $WORK/www;
    location = /delay/10 { echo_sleep 0.010; echo '{"ok":true}'; }
    location = /delay/20 { echo_sleep 0.020; echo '{"ok":true}'; }
    location = /delay/50 {
      echo_sleep 0.050; echo '{"ok":true}';
      access_log $WORK/delay50.log request_time buffer=256k flush=1s;
    }
  }
  server {
    listen 127.0.0.1:$H1S ssl;
    root $WORK/www;
  }
}
CONF
mkdir -p "$WORK/tmp"
nginx -c "$WORK/nginx.conf" -p "$WORK"
for _ in $(seq 50); do curl -sf "http://127.0.0.1:$PLAIN/small.json" > /dev/null && break; sleep 0.1; done
curl -sf "http://127.0.0.1:$PLAIN/small.json" > /dev/null || { cat "$WORK/error.log"; exit 1; }
curl -sf --cacert "$WORK/ca.pem" "https://127.0.0.1:$H2/small.json" > /dev/null
curl -sf --cacert "$WORK/ca.pem" "https://127.0.0.1:$H1S/small.json" > /dev/null

# How reqplan trusts the test CA: --cacert when this build has it, else --insecure.
if "$R" run --help 2>&1 | grep -q -- '--cacert'; then TLS=(--cacert "$WORK/ca.pem"); else TLS=(--insecure); fi
