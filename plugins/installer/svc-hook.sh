#!/bin/sh
# svc hook shim, installed by `svc install` as $SVC_HOME/bin/svc-hook.
# Relays a harness hook payload (stdin) to the svc daemon and the daemon's native answer (stdout).
# POSIX sh + curl (>= 7.84) + openssl only: no Node start per tool call.
#
#   svc-hook <harness> <event> [--url=URL] [--svc-install=ID] [--key=FILE] [--observe] [--fail-open] [--timeout=SECONDS]
#
# Fails closed: when the daemon is unreachable, slower than --timeout, or answers anything but a
# well-formed svc answer, a pre-tool event is blocked with exit 2 and the reason on stderr (the blocking
# form Claude Code, Codex CLI, Gemini CLI and Cursor share). --fail-open lets the call through instead;
# --observe marks post-tool events, which never block (the tool already ran).
#
# Only the daemon can answer: every call carries a fresh nonce, and an answer counts only with x-svc-mac,
# an HMAC-SHA256 over nonce, harness, event and body under the install's hook key ($SVC_HOME/hook.key,
# mode 0600; --key names another file). A stand-in on the daemon's port, or an answer recorded earlier,
# has no valid MAC. The URL must be a literal loopback address (127.0.0.1 or [::1]), never a name.
harness=${1:-}
event=${2:-}
[ $# -ge 2 ] && shift 2
url=${SVC_URL:-http://127.0.0.1:7878}
timeout=${SVC_HOOK_TIMEOUT:-5}
observe=0
fail_open=0
install=
# Beside the shim in $SVC_HOME/bin; computed without external commands (a planted `dirname` could lie).
case $0 in */*) key_file=${0%/*}/../hook.key ;; *) key_file=./../hook.key ;; esac
for arg do
  case $arg in
    --url=*) url=${arg#--url=} ;;
    --svc-install=*) install=${arg#--svc-install=} ;;
    --key=*) key_file=${arg#--key=} ;;
    --timeout=*) timeout=${arg#--timeout=} ;;
    --observe) observe=1 ;;
    --fail-open) fail_open=1 ;;
  esac
done

fail() {
  [ "$observe" = 1 ] && exit 0
  if [ "$fail_open" = 1 ]; then
    echo "svc: $1; the call was let through because svc was installed fail-open" >&2
    exit 0
  fi
  # The true way to start it: the service svc installed, else a terminal (`svc service install` sets one up).
  start="Start the svc daemon (\`svc daemon\` in a terminal, or \`svc service install\` to keep it running) and retry"
  if [ -f "${XDG_CONFIG_HOME:-$HOME/.config}/systemd/user/svc-daemon.service" ]; then
    start="Ask the user to restart the svc daemon service (\`systemctl --user restart svc-daemon.service\`; \`journalctl --user -u svc-daemon\` says why it stopped) and retry"
  elif [ -f "$HOME/Library/LaunchAgents/dev.svc.daemon.plist" ]; then
    start="Ask the user to restart the svc daemon service (\`launchctl kickstart -k gui/$(id -u)/dev.svc.daemon\`; its log is in ~/Library/Logs/svc/) and retry"
  fi
  echo "svc: $1. The tool call was blocked (fail-closed). $start." >&2
  exit 2
}

# The agent under control can write its own home and often a directory early on PATH (~/.local/bin), so
# nothing there may steer the hook: curl and openssl come from the system directories first, -q (first
# argument) skips ~/.curlrc, and --noproxy skips proxy variables (which would also send hooks through a
# corporate proxy).
tool() {
  for dir in /usr/bin /bin /usr/local/bin /opt/homebrew/bin; do
    [ -x "$dir/$1" ] && { echo "$dir/$1"; return 0; }
  done
  command -v "$1"
}
curl=$(tool curl) || fail "curl was not found"
openssl=$(tool openssl) || fail "openssl was not found (it checks that answers come from the svc daemon)"

case $harness in '' | *[!a-z0-9-]*) fail "bad harness id '$harness' in the hook command" ;; esac
case $event in '' | *[!A-Za-z0-9_]*) fail "bad event name '$event' in the hook command" ;; esac
# A host name could resolve to whatever listens first (an impostor on [::1] when the daemon holds 127.0.0.1).
case $url in
  http://127.0.0.1:[0-9]* | 'http://[::1]:'[0-9]*) ;;
  *) fail "the daemon URL '$url' is not a literal loopback address (http://127.0.0.1:PORT or http://[::1]:PORT); re-run \`svc install\`" ;;
esac
case ${url##*:} in '' | *[!0-9]*) fail "bad port in the daemon URL '$url'" ;; esac

[ -r "$key_file" ] || fail "cannot read the hook key $key_file; re-run \`svc install\`"
key=
IFS= read -r key < "$key_file"
case $key in *[!0-9a-f]* | '') fail "the hook key $key_file is malformed; re-run \`svc install\`" ;; esac
nonce=$("$openssl" rand -hex 16 2>/dev/null)
case $nonce in *[!0-9a-f]* | '') fail "openssl could not make a nonce" ;; esac

resp=$("$curl" -q --noproxy '*' -sS --max-time "$timeout" --connect-timeout 2 -X POST \
  -H 'Content-Type: application/json' -H "X-Svc-Install: $install" -H "X-Svc-Nonce: $nonce" \
  --data-binary @- -w '
%{http_code} %header{x-svc-hook} %header{x-svc-mac}' "$url/v1/hooks/$harness/$event" 2>/dev/null)
rc=$?
[ "$rc" -eq 0 ] || fail "the svc daemon at $url did not answer (curl exit $rc)"

trailer=${resp##*
}
body=${resp%
*}
[ "$body" = "$resp" ] && body=
case $trailer in
  '200 1 '*) ;;
  '200 %header{x-svc-hook}'*) fail "curl is older than 7.84 and cannot check the answer" ;;
  200*) fail "the answer at $url did not come from svc" ;;
  *) fail "the svc daemon answered HTTP ${trailer%% *}" ;;
esac
mac=${trailer#'200 1 '}
expected=$(printf 'svc-hook-mac/v1\n%s\n%s\n%s\n%s' "$nonce" "$harness" "$event" "$body" | "$openssl" dgst -sha256 -hmac "$key" 2>/dev/null)
expected=${expected##*= }
case $expected in *[!0-9a-f]* | '') fail "openssl could not check the answer's MAC" ;; esac
[ "$mac" = "$expected" ] || fail "the answer at $url carries no valid svc MAC (not the svc daemon, or a replayed answer)"
case $body in
  '' | '{'*'}') ;;
  *) fail "the svc daemon sent an answer that is not JSON" ;;
esac
printf '%s' "$body"
exit 0
