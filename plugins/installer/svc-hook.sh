#!/bin/sh
# svc hook shim, installed by `svc install` as $SVC_HOME/bin/svc-hook.
# Relays a harness hook payload (stdin) to the svc daemon and the daemon's native answer (stdout).
# No Node start per tool call. Under bash >= 5.1 (the installed copy starts `/bin/bash -p` where there is one)
# it spawns only two short `sha256sum` processes: the HTTP exchange goes through bash's /dev/tcp, the nonce
# comes from $SRANDOM. Anywhere else it is POSIX sh + curl (>= 7.84) + openssl, as before.
#
#   svc-hook <harness> <event> [--url=URL] [--socket=PATH] [--svc-install=ID] [--key=FILE] [--observe] [--fail-open] [--timeout=SECONDS]
#
# --socket: a daemon under its own account (`svc service install --system`) is reached on its Unix socket, in a
# directory only that account can write, so no process of the developer's uid can stand in for it. bash's
# /dev/tcp cannot open a Unix socket: that route always takes the curl + openssl path (curl --unix-socket).
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
# Run by another sh (`sh svc-hook`), it moves to bash when there is one; -p ignores BASH_ENV and exported
# functions, which a process that can write the user's shell files could otherwise plant.
[ -n "${BASH_VERSION:-}" ] || [ ! -x /bin/bash ] || exec /bin/bash -p "$0" "$@"
harness=${1:-}
event=${2:-}
[ $# -ge 2 ] && shift 2
url=${SVC_URL:-http://127.0.0.1:7878}
timeout=${SVC_HOOK_TIMEOUT:-5}
observe=0
fail_open=0
install=
socket=
# Beside the shim in $SVC_HOME/bin; computed without external commands (a planted `dirname` could lie).
case $0 in */*) key_file=${0%/*}/../hook.key ;; *) key_file=./../hook.key ;; esac
for arg do
  case $arg in
    --url=*) url=${arg#--url=} ;;
    --svc-install=*) install=${arg#--svc-install=} ;;
    --key=*) key_file=${arg#--key=} ;;
    --socket=*) socket=${arg#--socket=} ;;
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
  elif [ -f "${0%/*}/../init.json" ]; then
    start="Ask the user to run \`svc init\` (it starts the daemon and the renewer it set up) and retry"
  fi
  [ -n "$socket" ] && start="Ask the user to start the svc system daemon (\`sudo systemctl start svc-daemon.service\`, or as root \`svc daemon --user <account>\` where no service manager runs) and retry"
  # npm 7+ runs no uninstall script: removing the svc package leaves these hooks. Say how out when svc is gone.
  command -v svc >/dev/null 2>&1 ||
    start="$start. If the svc package was removed (\`svc\` is not on PATH), its hooks were left behind: reinstall it and run \`svc uninstall --all\`, or delete the entries that run ${0%/*}/svc-hook from the agent's hook config"
  echo "svc: $1. The tool call was blocked (fail-closed). $start." >&2
  exit 2
}

case $harness in '' | *[!a-z0-9-]*) fail "bad harness id '$harness' in the hook command" ;; esac
case $event in '' | *[!A-Za-z0-9_]*) fail "bad event name '$event' in the hook command" ;; esac
case $install in *[!A-Za-z0-9._:-]*) fail "bad install id '$install' in the hook command" ;; esac
case $timeout in '' | *[!0-9.]* | .*) fail "bad timeout '$timeout' in the hook command" ;; esac
# A host name could resolve to whatever listens first (an impostor on [::1] when the daemon holds 127.0.0.1).
case $url in
  http://127.0.0.1:[0-9]* | 'http://[::1]:'[0-9]*) ;;
  *) fail "the daemon URL '$url' is not a literal loopback address (http://127.0.0.1:PORT or http://[::1]:PORT); re-run \`svc install\`" ;;
esac
case ${url##*:} in '' | *[!0-9]*) fail "bad port in the daemon URL '$url'" ;; esac
# The socket's directory must not be the caller's: whoever can write it can replace the socket.
at=$url
case $socket in
  '') ;;
  /*[!A-Za-z0-9._/-]* | [!/]*) fail "bad socket path '$socket' in the hook command" ;;
  *)
    [ -S "$socket" ] || fail "the svc daemon's hook socket $socket is not there (curl exit 7)"
    [ -O "${socket%/*}" ] && fail "the hook socket's directory ${socket%/*} is yours, so any of your processes could replace the socket; re-run \`svc install\`"
    url=http://localhost at=$socket
    ;;
esac

[ -r "$key_file" ] || fail "cannot read the hook key $key_file; re-run \`svc install\`"
key=
IFS= read -r key < "$key_file"
case $key in *[!0-9a-f]* | '') fail "the hook key $key_file is malformed; re-run \`svc install\`" ;; esac

# The agent under control can write its own home and often a directory early on PATH (~/.local/bin), so
# nothing there may steer the hook: helpers come from the system directories first (found without a
# subshell, so the bash path forks nothing here).
found=
find_tool() {
  found=
  for dir in /usr/bin /bin /usr/local/bin /opt/homebrew/bin; do
    [ -x "$dir/$1" ] && { found=$dir/$1; return 0; }
  done
  found=$(command -v "$1")
}

# $status, $hook (x-svc-hook), $mac (x-svc-mac) and $body of the daemon's answer, and $expected (the MAC this
# call needs): fail closed on anything but a well-formed svc answer with a valid MAC, else relay the body.
# Messages name curl's exit codes on both paths (7: no connection, 28: timed out).
relay() {
  case $status in
    200) ;;
    '') fail "the svc daemon at $at did not answer (curl exit 52)" ;;
    *) fail "the svc daemon answered HTTP $status" ;;
  esac
  [ "$hook" = 1 ] || fail "the answer at $at did not come from svc"
  case $expected in *[!0-9a-f]* | '') fail "could not check the answer's MAC" ;; esac
  [ "$mac" = "$expected" ] || fail "the answer at $at carries no valid svc MAC (not the svc daemon, or a replayed answer)"
  case $body in
    '' | '{'*'}') ;;
    *) fail "the svc daemon sent an answer that is not JSON" ;;
  esac
  printf '%s' "$body"
  exit 0
}

find_tool sha256sum
# sh, or bash before 5.1 (no $SRANDOM): curl and openssl. -q (first argument) skips ~/.curlrc, and
# --noproxy skips proxy variables (which would also send hooks through a corporate proxy).
fast=
case ${BASH_VERSION:-} in 5.[1-9]* | [6-9].* | [1-9][0-9].*) [ -n "$found" ] && [ -z "$socket" ] && fast=1 ;; esac
if [ -z "$fast" ]; then
  find_tool curl
  curl=$found
  [ -n "$curl" ] || fail "curl was not found"
  find_tool openssl
  openssl=$found
  [ -n "$openssl" ] || fail "openssl was not found (it checks that answers come from the svc daemon)"
  nonce=$("$openssl" rand -hex 16 2>/dev/null)
  case $nonce in *[!0-9a-f]* | '') fail "openssl could not make a nonce" ;; esac
  set --
  [ -n "$socket" ] && set -- --unix-socket "$socket"
  resp=$("$curl" -q "$@" --noproxy '*' -sS --max-time "$timeout" --connect-timeout 2 -X POST \
    -H 'Content-Type: application/json' -H "X-Svc-Install: $install" -H "X-Svc-Nonce: $nonce" \
    --data-binary @- -w '
%{http_code} %header{x-svc-hook} %header{x-svc-mac}' "$url/v1/hooks/$harness/$event" 2>/dev/null)
  rc=$?
  [ "$rc" -eq 0 ] || fail "the svc daemon at $at did not answer (curl exit $rc)"
  trailer=${resp##*
}
  body=${resp%
*}
  [ "$body" = "$resp" ] && body=
  case $trailer in '200 %header{x-svc-hook}'*) fail "curl is older than 7.84 and cannot check the answer" ;; esac
  status=${trailer%% *}
  trailer=${trailer#* }
  hook=${trailer%% *}
  mac=${trailer#* }
  expected=$(printf 'svc-hook-mac/v1\n%s\n%s\n%s\n%s' "$nonce" "$harness" "$event" "$body" | "$openssl" dgst -sha256 -hmac "$key" 2>/dev/null)
  expected=${expected##*= }
  relay
fi

# bash >= 5.1 from here on (sh never reads this far). Four processes in all: this shell, the exchange's
# subshell and two sha256sum.
sha256=$found
# ${#payload} counts bytes; exported, sha256sum loads no locale files either.
export LC_ALL=C
printf -v nonce '%08x%08x%08x%08x' "$SRANDOM" "$SRANDOM" "$SRANDOM" "$SRANDOM"
# read -N reads in blocks (read -d, and $(</dev/stdin) on the socket pair Node gives a child, do not).
IFS= read -r -N 16777216 payload
host=${url#http://}
host=${host%:*}
host=${host#[}
host=${host%]}
printf -v request 'POST /v1/hooks/%s/%s HTTP/1.0\r\nHost: %s\r\nContent-Type: application/json\r\nX-Svc-Install: %s\r\nX-Svc-Nonce: %s\r\nContent-Length: %d\r\n\r\n' \
  "$harness" "$event" "${url#http://}" "$install" "$nonce" "${#payload}"
# HMAC-SHA256 = H((K ^ opad) || H((K ^ ipad) || m)). The key is 64 hex characters, exactly one SHA-256 block,
# so the pads are the key's bytes xor 0x36 / 0x5c, written as printf escapes (one may be a NUL byte, which
# no shell variable holds, but printf writes). The key's digits are first renamed g..v so that no
# replacement meets an earlier one's output.
k=${key//0/g} k=${k//1/h} k=${k//2/i} k=${k//3/j} k=${k//4/k} k=${k//5/l} k=${k//6/m} k=${k//7/n}
k=${k//8/o} k=${k//9/p} k=${k//a/q} k=${k//b/r} k=${k//c/s} k=${k//d/t} k=${k//e/u} k=${k//f/v}
ipad=${k//g/\\x06} ipad=${ipad//h/\\x07} ipad=${ipad//i/\\x04} ipad=${ipad//j/\\x05} ipad=${ipad//k/\\x02}
ipad=${ipad//l/\\x03} ipad=${ipad//m/\\x00} ipad=${ipad//n/\\x01} ipad=${ipad//o/\\x0e} ipad=${ipad//p/\\x0f}
ipad=${ipad//q/\\x57} ipad=${ipad//r/\\x54} ipad=${ipad//s/\\x55} ipad=${ipad//t/\\x52} ipad=${ipad//u/\\x53} ipad=${ipad//v/\\x50}
opad=${k//g/\\x6c} opad=${opad//h/\\x6d} opad=${opad//i/\\x6e} opad=${opad//j/\\x6f} opad=${opad//k/\\x68}
opad=${opad//l/\\x69} opad=${opad//m/\\x6a} opad=${opad//n/\\x6b} opad=${opad//o/\\x64} opad=${opad//p/\\x65}
opad=${opad//q/\\x3d} opad=${opad//r/\\x3e} opad=${opad//s/\\x3f} opad=${opad//t/\\x38} opad=${opad//u/\\x39} opad=${opad//v/\\x3a}
# The exchange runs in a forked subshell so that one timed read covers all of it: a daemon that takes the
# connection but never reads or answers (or a full accept queue) cannot hold the hook past --timeout.
# HTTP/1.0 makes the daemon close after the answer, so the answer is everything up to EOF.
exchange() {
  { exec 3<>"/dev/tcp/$host/${url##*:}"; } 2>/dev/null || exit 7
  printf '%s%s' "$request" "$payload" >&3
  IFS= read -r -N 16777216 -u 3 answer
  printf '%s' "$answer"
}
# Its stderr goes nowhere: a harness waits for the hook's output to close, not only for it to exit.
exec {from}< <(exchange 2>/dev/null)
exchange_pid=$!
# While the daemon decides, both hashes' sha256sum start (coprocesses; bash closes a coprocess's descriptors
# when it reaps one, so the shim works on copies) and the inner one reads what comes before the answer's body.
# The outer one must not hold the inner one's input open, or that would never end.
{ coproc INNER { exec "$sha256"; }; } 2>/dev/null
exec {inner_in}>&"${INNER[1]}" {inner_out}<&"${INNER[0]}"
exec {INNER[1]}>&-
{ coproc OUTER { exec "$sha256" {inner_in}>&-; }; } 2>/dev/null
exec {outer_in}>&"${OUTER[1]}" {outer_out}<&"${OUTER[0]}"
exec {OUTER[1]}>&-
printf "$ipad%s" "svc-hook-mac/v1"$'\n'"$nonce"$'\n'"$harness"$'\n'"$event"$'\n' >&"$inner_in"
printf "$opad" >&"$outer_in"
IFS= read -r -N 16777216 -t "$timeout" -u "$from" resp
if [ $? -gt 128 ]; then
  kill "$exchange_pid" 2>/dev/null
  fail "the svc daemon at $at did not answer (curl exit 28)"
fi
exec {from}<&-
wait "$exchange_pid"
[ $? = 7 ] && fail "the svc daemon at $at did not answer (curl exit 7)"

status= hook= mac= body=
head=${resp%%$'\r\n\r\n'*}
if [ "$head" != "$resp" ]; then
  body=${resp#*$'\r\n\r\n'}
  status=${head#HTTP/1.[01] }
  status=${status%%[!0-9]*}
  lines=${head#*$'\r\n'}$'\r\n'
  shopt -s nocasematch # header names, for the case below only
  while [ -n "$lines" ]; do
    line=${lines%%$'\r\n'*}
    lines=${lines#*$'\r\n'}
    case $line in
      x-svc-hook:*) hook=${line#*:} hook=${hook# } ;;
      x-svc-mac:*) mac=${line#*:} mac=${mac# } ;;
    esac
  done
  shopt -u nocasematch
fi

printf '%s' "$body" >&"$inner_in"
exec {inner_in}>&-
digest=
# -N: one block read, not a read per byte from the pipe.
read -r -N 64 digest <&"$inner_out"
inner=
for ((i = 0; i < 64; i += 2)); do inner+="\\x${digest:i:2}"; done
printf "$inner" >&"$outer_in"
exec {outer_in}>&-
expected=
read -r -N 64 expected <&"$outer_out"
relay
