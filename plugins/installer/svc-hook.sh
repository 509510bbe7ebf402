#!/bin/sh
# svc hook shim, installed by `svc install` as $SVC_HOME/bin/svc-hook.
# Relays a harness hook payload (stdin) to the svc daemon and the daemon's native answer (stdout).
# POSIX sh + curl (>= 7.84) only: no Node start per tool call.
#
#   svc-hook <harness> <event> [--url=URL] [--svc-install=ID] [--observe] [--fail-open] [--timeout=SECONDS]
#
# Fails closed: when the daemon is unreachable, slower than --timeout, or answers anything but a
# well-formed svc answer, a pre-tool event is blocked with exit 2 and the reason on stderr (the blocking
# form Claude Code, Codex CLI, Gemini CLI and Cursor share). --fail-open lets the call through instead;
# --observe marks post-tool events, which never block (the tool already ran).
harness=${1:-}
event=${2:-}
[ $# -ge 2 ] && shift 2
url=${SVC_URL:-http://127.0.0.1:7878}
timeout=${SVC_HOOK_TIMEOUT:-5}
observe=0
fail_open=0
install=
for arg do
  case $arg in
    --url=*) url=${arg#--url=} ;;
    --svc-install=*) install=${arg#--svc-install=} ;;
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
  echo "svc: $1. The tool call was blocked (fail-closed). Start the svc daemon (\`svc daemon\`) and retry." >&2
  exit 2
}

# The agent under control can write its own home and often a directory early on PATH (~/.local/bin), so
# nothing there may steer the hook: curl comes from the system directories first, -q (first argument)
# skips ~/.curlrc, and --noproxy skips proxy variables (which would also send hooks through a corporate proxy).
curl=
for c in /usr/bin/curl /bin/curl; do
  [ -x "$c" ] && { curl=$c; break; }
done
[ -n "$curl" ] || curl=$(command -v curl) || fail "curl was not found"

case $harness in '' | *[!a-z0-9-]*) fail "bad harness id '$harness' in the hook command" ;; esac
case $event in '' | *[!A-Za-z0-9_]*) fail "bad event name '$event' in the hook command" ;; esac

resp=$("$curl" -q --noproxy '*' -sS --max-time "$timeout" --connect-timeout 2 -X POST \
  -H 'Content-Type: application/json' -H "X-Svc-Install: $install" \
  --data-binary @- -w '
%{http_code} %header{x-svc-hook}' "$url/v1/hooks/$harness/$event" 2>/dev/null)
rc=$?
[ "$rc" -eq 0 ] || fail "the svc daemon at $url did not answer (curl exit $rc)"

trailer=${resp##*
}
body=${resp%
*}
[ "$body" = "$resp" ] && body=
case $trailer in
  '200 1') ;;
  '200 %header{x-svc-hook}') fail "curl is older than 7.84 and cannot check the answer" ;;
  200*) fail "the answer at $url did not come from svc" ;;
  *) fail "the svc daemon answered HTTP ${trailer%% *}" ;;
esac
case $body in
  '' | '{'*'}') ;;
  *) fail "the svc daemon sent an answer that is not JSON" ;;
esac
printf '%s' "$body"
exit 0
