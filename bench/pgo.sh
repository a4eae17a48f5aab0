#!/usr/bin/env bash
# bench/pgo.sh: record the CPU profile that cmd/harnest/default.pgo is.
#
# `go build ./cmd/harnest` (and go run, go install) optimises harnest with the profile in
# cmd/harnest/default.pgo (Go's profile-guided optimisation: inlining and devirtualisation where
# the profile says the time goes). This script makes that profile again from the loads the
# benchmark measures: it builds harnest with its profiling endpoint (-tags pprof, loopback only),
# runs each load below against a fresh server, takes a CPU profile in the middle of each, and
# merges them into cmd/harnest/default.pgo. Run it when the hot paths have changed much; then
# measure (bench/run.sh) with the new profile against the old one.
#
#   json-embedded  JSON POST /responses, examples/hello, embedded store
#   sse-embedded   streamed POST /responses, the same
#   json-redis     JSON POST /responses on a fresh redis-server (skipped without redis-server)
#   a2a            A2A SendMessage, bench/agents/echo
#
# Environment: CONC (32), DURATION of each load (10s; the profile covers all but its first and
# last second), OUT (cmd/harnest/default.pgo). Every server binds 127.0.0.1 and is stopped on exit.

set -uo pipefail
HARNEST_FLAGS=${HARNEST_FLAGS:-}
cd "$(dirname "$0")/.." || exit 1

CONC=${CONC:-32}
DURATION=${DURATION:-10s}
WARMUP=1s
OUT=${OUT:-cmd/harnest/default.pgo}
seconds=${DURATION%s}
if ! [[ $seconds =~ ^[0-9]+$ ]] || ((seconds < 4)); then
	echo "bench/pgo.sh: DURATION must be whole seconds, at least 4s (got $DURATION)" >&2
	exit 2
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/harnest-pgo.XXXXXX") || exit 1
results="$tmp/results.jsonl"
summary="$tmp/summary.txt"
: >"$results"
: >"$summary"
pids=()
started_pid=0
# shellcheck source=bench/lib.sh
. bench/lib.sh
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "== building (harnest with -tags pprof, without a profile)"
for tool in loadclient freeport; do
	go build -o "$tmp/$tool" "./bench/$tool" || exit 1
done
go build -tags pprof -pgo=off -o "$tmp/harnest" ./cmd/harnest || exit 1

profiles=()

# profiled NAME FOLDER LOAD-PATH BODY [harnest flags -- load flags]: serve FOLDER on a fresh
# harnest, load it, and keep the CPU profile of the load's middle in $tmp/NAME.pprof.
profiled() {
	local name=$1 folder=$2 path=$3 body=$4 port pprof_port
	shift 4
	local serve=() loadflags=()
	while (($#)) && [[ $1 != -- ]]; do
		serve+=("$1")
		shift
	done
	(($#)) && shift
	loadflags=("$@")
	port=$(free_port) || return 1
	pprof_port=$(free_port) || return 1
	export HARNEST_PPROF_ADDR="127.0.0.1:$pprof_port" # the server inherits it
	start_harnest "$name" "$port" "$folder" "${serve[@]}" || return 1
	local pid=$started_pid
	unset HARNEST_PPROF_ADDR
	(
		sleep $((1 + ${WARMUP%s}))
		curl -sf -o "$tmp/$name.pprof" "http://127.0.0.1:$pprof_port/debug/pprof/profile?seconds=$((seconds - 2))"
	) &
	local fetch=$!
	load "pgo|$name" "http://127.0.0.1:$port$path" "$body" "${loadflags[@]}"
	if wait "$fetch" && [[ -s $tmp/$name.pprof ]]; then
		profiles+=("$tmp/$name.pprof")
	else
		echo "!! $name: no profile was taken"
	fi
	stop_pid "$pid"
}

json='{"input":"hello"}'
profiled json-embedded examples/hello /responses "$json" -- -expect completed
profiled sse-embedded examples/hello /responses '{"input":"hello","stream":true}' -- -sse -sse-final response.completed
if command -v redis-server >/dev/null; then
	redis_port=$(free_port) || exit 1
	if start_redis redis "$redis_port"; then
		redis_pid=$started_pid
		profiled json-redis examples/hello /responses "$json" --redis-url "redis://127.0.0.1:$redis_port" -- -expect completed
		stop_pid "$redis_pid"
	fi
else
	echo "   json-redis: skipped (redis-server is not on PATH)"
fi
profiled a2a bench/agents/echo /a2a \
	'{"jsonrpc":"2.0","id":"1","method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hello"}]}}}' \
	-- -header "A2A-Version: 1.0" -expect "Echo: hello"

if ((${#profiles[@]} == 0)); then
	echo "!! no profile was taken; $OUT is unchanged" >&2
	exit 1
fi
go tool pprof -proto "${profiles[@]}" >"$tmp/merged.pgo" 2>"$tmp/merge.log" || {
	cat "$tmp/merge.log" >&2
	exit 1
}
mv "$tmp/merged.pgo" "$OUT" || exit 1
echo "== wrote $OUT from ${#profiles[@]} profiles: $(wc -c <"$OUT") bytes"
