#!/usr/bin/env bash
# bench/run.sh — harnest vs a bare net/http baseline, same load client, same run.
# See bench/README.md. Env: DURATION (10s), CONC (32), WARMUP (1s), ROUNDS (2),
# APP (examples/hello), RESULTS (file to keep the raw JSON lines, optional),
# HARNEST_BIN (use this prebuilt harnest binary instead of building ./cmd/harnest),
# HARNEST_FLAGS (extra flags for every "harnest serve", e.g. "--log-level warn").
#
# Note: the load client and the servers share this machine's cores (2 here).
# No GOMAXPROCS is set: every Go process sees all cores and they compete.
# Absolute req/s are therefore lower than on a dedicated client, and the
# harnest/baseline ratio is what matters (see README, "Shared cores").
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1

DURATION=${DURATION:-10s}
CONC=${CONC:-32}
WARMUP=${WARMUP:-1s}
ROUNDS=${ROUNDS:-2}
APP=${APP:-examples/hello}
RESULTS=${RESULTS:-}
HARNEST_BIN=${HARNEST_BIN:-}
HARNEST_FLAGS=${HARNEST_FLAGS:-}

JSON_BODY='{"input":"hello"}'
SSE_BODY='{"input":"hello","stream":true}'

tmp=$(mktemp -d "${TMPDIR:-/tmp}/harnest-bench.XXXXXX") || exit 1
results="$tmp/results.jsonl"
: >"$results"
pids=()

# stop_pid PID: TERM, wait up to 5s, then KILL. Only for processes we started.
stop_pid() {
	local pid=$1 i
	kill "$pid" 2>/dev/null || return 0
	for ((i = 0; i < 50; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}

cleanup() {
	local pid
	for pid in "${pids[@]}"; do
		stop_pid "$pid"
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# http_ok PORT PATH: 0 if GET answers 2xx (bash /dev/tcp, no curl needed).
http_ok() {
	local line
	line=$(
		exec 2>/dev/null
		exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
		printf 'GET %s HTTP/1.0\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n' "$2" >&3
		IFS= read -r -t 2 l <&3 || exit 1
		printf '%s' "$l"
	) 2>/dev/null || return 1
	[[ $line == HTTP/1.?" 2"* ]]
}

# redis_ok PORT: 0 if PING answers +PONG.
redis_ok() {
	local line
	line=$(
		exec 2>/dev/null
		exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
		printf 'PING\r\n' >&3
		IFS= read -r -t 2 l <&3 || exit 1
		printf '%s' "$l"
	) 2>/dev/null || return 1
	[[ $line == +PONG* ]]
}

# wait_ready NAME PID CHECK...: bounded retry (20s) while the process lives.
wait_ready() {
	local name=$1 pid=$2 i
	shift 2
	for ((i = 0; i < 200; i++)); do
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "!! $name exited before it was ready; last log lines:"
			tail -n 20 "$tmp/$name.log" | sed 's/^/     /'
			return 1
		fi
		"$@" && return 0
		sleep 0.1
	done
	echo "!! $name not ready after 20s; last log lines:"
	tail -n 20 "$tmp/$name.log" | sed 's/^/     /'
	return 1
}

# load LABEL URL BODY [loadclient flags...]: one measured run, appended to results.
load() {
	local label=$1 url=$2 body=$3 out rc rps fail
	shift 3
	out=$("$tmp/loadclient" -url "$url" -body "$body" -header "Content-Type: application/json" \
		-c "$CONC" -d "$DURATION" -warmup "$WARMUP" -json -label "$label" "$@")
	rc=$?
	if ((rc == 130)); then
		echo "!! interrupted"
		exit 130
	fi
	if ((rc != 0)) || [[ -z $out ]]; then
		echo "!! $label: load client failed (exit $rc)"
		return 1
	fi
	printf '%s\n' "$out" >>"$results"
	rps=$(sed -n 's/.*"reqPerSec":\([0-9.e+]*\).*/\1/p' <<<"$out")
	fail=$(sed -n 's/.*"failures":\([0-9]*\).*/\1/p' <<<"$out")
	printf '   %-28s %10.0f req/s  failures %s\n' "$label" "$rps" "$fail"
}

# start_harnest NAME PORT [extra flags...]: serve a fresh copy of APP.
# HARNEST_REDIS_URL is removed from the environment so that "embedded" is
# really the embedded store; the redis run passes --redis-url explicitly.
start_harnest() {
	local name=$1 port=$2
	shift 2
	cp -R "$APP" "$tmp/app-$name" || return 1
	# shellcheck disable=SC2086 # HARNEST_FLAGS is split on purpose
	env -u HARNEST_REDIS_URL "$tmp/harnest" serve "$tmp/app-$name" --host 127.0.0.1 --port "$port" \
		$HARNEST_FLAGS "$@" >"$tmp/$name.log" 2>&1 &
	pids+=($!)
	wait_ready "$name" "$!" http_ok "$port" /healthz
}

echo "== harnest bench: DURATION=$DURATION CONC=$CONC WARMUP=$WARMUP ROUNDS=$ROUNDS"
echo "== cores: $(nproc 2>/dev/null || echo '?'), shared by the load client and the servers; GOMAXPROCS=${GOMAXPROCS:-unset (all cores)}"

echo "== building"
go build -o "$tmp/baseline" ./bench/baseline || exit 1
go build -o "$tmp/loadclient" ./bench/loadclient || exit 1
go build -o "$tmp/freeport" ./bench/freeport || exit 1
go build -o "$tmp/report" ./bench/report || exit 1
have_harnest=0
if [[ -n $HARNEST_BIN ]]; then
	if cp "$HARNEST_BIN" "$tmp/harnest"; then
		have_harnest=1
		echo "   using HARNEST_BIN=$HARNEST_BIN"
	else
		echo "!! cannot copy HARNEST_BIN=$HARNEST_BIN; running the baseline only"
	fi
elif go build -o "$tmp/harnest" ./cmd/harnest 2>"$tmp/harnest-build.log"; then
	have_harnest=1
else
	echo "!! harnest build failed; running the baseline only. Build output:"
	head -n 20 "$tmp/harnest-build.log" | sed 's/^/     /'
fi

echo "== starting servers"
base_port=$("$tmp/freeport") || exit 1
"$tmp/baseline" -addr "127.0.0.1:$base_port" >"$tmp/baseline.log" 2>&1 &
pids+=($!)
wait_ready baseline "$!" http_ok "$base_port" /healthz || exit 1
base_url="http://127.0.0.1:$base_port"
echo "   baseline          $base_url"

have_embedded=0
if ((have_harnest)); then
	emb_port=$("$tmp/freeport") || exit 1
	if start_harnest harnest-embedded "$emb_port"; then
		have_embedded=1
		emb_url="http://127.0.0.1:$emb_port"
		echo "   harnest-embedded  $emb_url"
	fi
fi

echo "== JSON: POST /responses $JSON_BODY"
for ((r = 1; r <= ROUNDS; r++)); do
	load "json|baseline" "$base_url/responses" "$JSON_BODY"
	if ((have_embedded)); then
		load "json|harnest-embedded" "$emb_url/responses" "$JSON_BODY"
	fi
done

if ((have_harnest)) && command -v redis-server >/dev/null; then
	echo "== JSON on redis"
	redis_port=$("$tmp/freeport") || exit 1
	redis-server --bind 127.0.0.1 --port "$redis_port" --save "" --appendonly no >"$tmp/redis.log" 2>&1 &
	redis_pid=$!
	pids+=("$redis_pid")
	if wait_ready redis "$redis_pid" redis_ok "$redis_port"; then
		red_port=$("$tmp/freeport") || exit 1
		if start_harnest harnest-redis "$red_port" --redis-url "redis://127.0.0.1:$redis_port"; then
			red_pid=${pids[-1]}
			for ((r = 1; r <= ROUNDS; r++)); do
				load "json-redis|baseline" "$base_url/responses" "$JSON_BODY"
				load "json-redis|harnest-redis" "http://127.0.0.1:$red_port/responses" "$JSON_BODY"
			done
			stop_pid "$red_pid"
		fi
	fi
	stop_pid "$redis_pid"
elif ((have_harnest)); then
	echo "== JSON on redis: skipped (redis-server not on PATH)"
fi

echo "== SSE: POST $SSE_BODY (baseline: /sse, 6 frames)"
for ((r = 1; r <= ROUNDS; r++)); do
	load "sse|baseline" "$base_url/sse" "$SSE_BODY" -sse -sse-final response.completed
	if ((have_embedded)); then
		load "sse|harnest-embedded" "$emb_url/responses" "$SSE_BODY" -sse -sse-final response.completed
	fi
done

echo
echo "== results ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc 2>/dev/null || echo '?') cores shared)"
"$tmp/report" -budget-scenario json -budget 0.5 "$results"
if ((!have_embedded)); then
	echo
	echo "(harnest was not measured: no ratio yet)"
fi
if [[ -n $RESULTS ]]; then
	cp "$results" "$RESULTS" && echo "raw results: $RESULTS"
fi
