#!/usr/bin/env bash
# The built daemon as `npm start` runs it: starts on a fresh IRONCLAW_HOME, answers /health and /ui, prints a
# login link that signs in, and stops cleanly on SIGTERM.
set -euo pipefail
cd "$(dirname "$0")/.."
home=$(mktemp -d)
out="$home/serve.out"
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$home"' EXIT
IRONCLAW_HOME="$home" IRONCLAW_LOG=warn node bin/ironclaw.js serve --port 0 >"$out" 2>"$home/serve.err" &
pid=$!
url=""
for _ in $(seq 1 120); do
  url=$(grep -o 'running at http://[^ ]*' "$out" | head -1 | sed 's/running at //') || true
  [ -n "$url" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$home/serve.err"; exit 1; }
  sleep 0.5
done
[ -n "$url" ] || { echo "serve printed no URL"; cat "$out" "$home/serve.err"; exit 1; }
link=$(grep -o 'http://[^ ]*/login?code=[^ ]*' "$out" | head -1)
node -e '
const [url, link] = process.argv.slice(1);
const check = (ok, what) => { if (!ok) { console.error("serve smoke: " + what); process.exit(1); } };
(async () => {
  const health = await (await fetch(url + "/health")).json();
  check(health.ok && health.data.status === "ok", "/health did not answer ok");
  const ui = await fetch(url + "/ui/");
  check(ui.status === 200 && (ui.headers.get("content-security-policy") ?? "").includes("script-src"), "/ui/ is not served with its CSP");
  const login = await fetch(link, { redirect: "manual" });
  check(login.status === 303 && (login.headers.get("set-cookie") ?? "").includes("HttpOnly"), "the login link did not sign in");
  console.log("serve smoke: " + url + " answered /health, /ui and the login link");
})();
' "$url" "$link"
kill -TERM "$pid"
wait "$pid"
echo "serve smoke: stopped cleanly on SIGTERM"
