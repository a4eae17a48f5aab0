#!/usr/bin/env bash
# bench/run.sh — every benchmark of issue #11 in one run, each figure beside
# its baseline or target. See bench/README.md.
#
# Sections (SECTIONS, default all but relay, in this order):
#   json    JSON POST /responses: harnest (embedded store, real redis-server) vs bare net/http
#   sse     SSE POST /responses (echo agent): harnest vs bare net/http
#   sse20   SSE turn of 20 text deltas: harnest (Node exec worker) vs Google ADK JS api_server,
#           turns/s at CONC and time to first event at TTFE_CONC
#   a2a     A2A blocking SendMessage: harnest vs @a2a-js/sdk and a2a-go v2
#   allocs  allocations per JSON, SSE and SSE-20 turn (Go benchmark, bench/turnbench)
#   growth  per-turn cost as a session grows; transcript pages and session lists as they grow
#   idle    idle SSE followers and idle /live sockets: server RSS per connection
#   fanout  one response followed by FANOUT_N SSE followers: delivery and CPU per event
#   memory  RSS per stored turn after N turns, throughput of the first 10k vs 100k turns
#   relay   (opt-in) the relay's own benchmarks: relayed turn, idle polls
#
# Env: SECTIONS, SHORT=1 (a smoke check: short runs, small sizes), DURATION (10s), CONC (32),
# WARMUP (1s), ROUNDS (2), TTFE_CONC (8), APP (examples/hello), RESULTS (keep the raw JSON
# lines), HARNEST_BIN (a prebuilt harnest instead of ./cmd/harnest), HARNEST_FLAGS (extra flags
# for every "harnest serve"), IDLE_N (10000), FANOUT_N (1000), FANOUT_DELTAS (200),
# GROWTH_TURN_AT, GROWTH_PAGE_AT, GROWTH_LIST_AT, MEMORY_AT (10000,20000,100000),
# BENCHTIME (allocs: 2000x), PEERS_INSTALL (1: npm ci the Node peers when missing; 0: skip them).
#
# The load client and the servers share this machine's cores (2 here); no GOMAXPROCS is set.
# Compare only figures from the same run (README, "Shared cores").
set -uo pipefail

cd "$(dirname "$0")/.." || exit 1

SHORT=${SHORT:-0}
if [[ $SHORT == 1 ]]; then
	: "${DURATION:=2s}" "${WARMUP:=500ms}" "${ROUNDS:=1}" "${IDLE_N:=1000}" "${FANOUT_N:=200}"
	: "${FANOUT_DELTAS:=50}" "${GROWTH_TURN_AT:=10,100,1000}" "${GROWTH_PAGE_AT:=100,1000,10000}"
	: "${GROWTH_LIST_AT:=100,1000,10000}" "${MEMORY_AT:=2000,4000,10000}" "${BENCHTIME:=200x}"
fi
DURATION=${DURATION:-10s}
CONC=${CONC:-32}
WARMUP=${WARMUP:-1s}
ROUNDS=${ROUNDS:-2}
TTFE_CONC=${TTFE_CONC:-8}
APP=${APP:-examples/hello}
RESULTS=${RESULTS:-}
HARNEST_BIN=${HARNEST_BIN:-}
HARNEST_FLAGS=${HARNEST_FLAGS:-}
IDLE_N=${IDLE_N:-10000}
FANOUT_N=${FANOUT_N:-1000}
FANOUT_DELTAS=${FANOUT_DELTAS:-200}
GROWTH_TURN_AT=${GROWTH_TURN_AT:-10,100,1000,10000}
GROWTH_PAGE_AT=${GROWTH_PAGE_AT:-100,1000,10000,100000}
GROWTH_LIST_AT=${GROWTH_LIST_AT:-100,1000,10000,100000}
MEMORY_AT=${MEMORY_AT:-10000,20000,100000}
BENCHTIME=${BENCHTIME:-2000x}
PEERS_INSTALL=${PEERS_INSTALL:-1}
SECTIONS=${SECTIONS:-json sse sse20 a2a allocs growth idle fanout memory}

JSON_BODY='{"input":"hello"}'
SSE_BODY='{"input":"hello","stream":true}'
A2A_BODY='{"jsonrpc":"2.0","id":"1","method":"SendMessage","params":{"message":{"messageId":"m1","role":"ROLE_USER","parts":[{"text":"hello"}]}}}'
ADK_BODY='{"appName":"stream20","userId":"bench","sessionId":"{{prepared}}","newMessage":{"role":"user","parts":[{"text":"hello"}]},"streaming":true}'

tmp=$(mktemp -d "${TMPDIR:-/tmp}/harnest-bench.XXXXXX") || exit 1
results="$tmp/results.jsonl"
summary="$tmp/summary.txt"
: >"$results"
: >"$summary"
pids=()       # processes this script started and has not stopped yet
started_pid=0 # the last process a start_* function started

# shellcheck source=bench/lib.sh
. bench/lib.sh
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "== harnest bench: SECTIONS=\"$SECTIONS\" DURATION=$DURATION CONC=$CONC WARMUP=$WARMUP ROUNDS=$ROUNDS SHORT=$SHORT"
echo "== cores: $(nproc 2>/dev/null || echo '?'), shared by the load client and the servers; GOMAXPROCS=${GOMAXPROCS:-unset (all cores)}"
begin=$SECONDS

echo "== building"
for tool in baseline loadclient freeport report followers idlelive growth turnmem; do
	go build -o "$tmp/$tool" "./bench/$tool" || exit 1
done
have_harnest=0
if [[ -n $HARNEST_BIN ]]; then
	if cp "$HARNEST_BIN" "$tmp/harnest"; then
		have_harnest=1
		echo "   using HARNEST_BIN=$HARNEST_BIN"
	else
		echo "!! cannot copy HARNEST_BIN=$HARNEST_BIN; harnest is not measured"
	fi
elif go build -o "$tmp/harnest" ./cmd/harnest 2>"$tmp/harnest-build.log"; then
	have_harnest=1
else
	echo "!! harnest build failed; only the baselines and peers are measured. Build output:"
	head -n 20 "$tmp/harnest-build.log" | sed 's/^/     /'
fi
have_redis=0
command -v redis-server >/dev/null && have_redis=1

# ---- json and sse: harnest against a bare net/http handler -------------------------------

base_pid=0
emb_pid=0
if want json || want sse; then
	base_port=$(free_port) || exit 1
	"$tmp/baseline" -addr "127.0.0.1:$base_port" >"$tmp/baseline.log" 2>&1 &
	base_pid=$!
	pids+=("$base_pid")
	wait_ready baseline "$base_pid" http_ok "$base_port" /healthz || exit 1
	base_url="http://127.0.0.1:$base_port"
	if ((have_harnest)); then
		emb_port=$(free_port) || exit 1
		if start_harnest harnest-embedded "$emb_port" "$APP"; then
			emb_pid=$started_pid
			emb_url="http://127.0.0.1:$emb_port"
		fi
	fi
fi

if want json; then
	echo "== json: POST /responses $JSON_BODY (baseline: bare net/http, fixed JSON)"
	for ((r = 1; r <= ROUNDS; r++)); do
		load "json|baseline" "$base_url/responses" "$JSON_BODY"
		((emb_pid)) && load "json|harnest-embedded" "$emb_url/responses" "$JSON_BODY"
	done
	if ((have_harnest && have_redis)); then
		redis_port=$(free_port) || exit 1
		if start_redis redis "$redis_port"; then
			redis_pid=$started_pid
			red_port=$(free_port) || exit 1
			if start_harnest harnest-redis "$red_port" "$APP" --redis-url "redis://127.0.0.1:$redis_port"; then
				red_pid=$started_pid
				for ((r = 1; r <= ROUNDS; r++)); do
					load "json-redis|baseline" "$base_url/responses" "$JSON_BODY"
					load "json-redis|harnest-redis" "http://127.0.0.1:$red_port/responses" "$JSON_BODY"
				done
				stop_pid "$red_pid"
			fi
			stop_pid "$redis_pid"
		fi
	elif ((have_harnest)); then
		echo "   json on redis: skipped (redis-server not on PATH)"
	fi
fi

if want sse; then
	echo "== sse: POST $SSE_BODY (baseline: /sse, 6 frames)"
	for ((r = 1; r <= ROUNDS; r++)); do
		load "sse|baseline" "$base_url/sse" "$SSE_BODY" -sse -sse-final response.completed
		((emb_pid)) && load "sse|harnest-embedded" "$emb_url/responses" "$SSE_BODY" -sse -sse-final response.completed
	done
fi
((emb_pid)) && stop_pid "$emb_pid"
((base_pid)) && stop_pid "$base_pid"

# ---- sse20: a turn of 20 text deltas, harnest against Google ADK JS --------------------------

if want sse20; then
	echo "== sse20: an SSE turn of 20 text deltas; harnest (bench/agents/stream20, Node exec workers) vs ADK JS api_server (bench/peers/adk)"
	h_pid=0 adk_pid=0
	if ((have_harnest)); then
		h_port=$(free_port) || exit 1
		start_harnest harnest-stream20 "$h_port" bench/agents/stream20 && h_pid=$started_pid
	fi
	if node_peer bench/peers/adk; then
		adk_port=$(free_port) || exit 1
		(cd bench/peers/adk && exec node node_modules/@google/adk-devtools/dist/esm/cli_entrypoint.js api_server \
			--host 127.0.0.1 --port "$adk_port" --compile false --bundle false --log_level warn agents) >"$tmp/adk.log" 2>&1 &
		adk_pid=$!
		pids+=("$adk_pid")
		wait_ready adk "$adk_pid" http_ok "$adk_port" /list-apps || { stop_pid "$adk_pid"; adk_pid=0; }
	fi
	adk=(-sse -prepare-url "http://127.0.0.1:${adk_port:-0}/apps/stream20/users/bench/sessions")
	hs=(-sse -sse-final response.completed)
	for ((r = 1; r <= ROUNDS; r++)); do
		((adk_pid)) && load "sse20|adk" "http://127.0.0.1:$adk_port/run_sse" "$ADK_BODY" "${adk[@]}"
		((h_pid)) && load "sse20|harnest" "http://127.0.0.1:$h_port/responses" "$SSE_BODY" "${hs[@]}"
	done
	for ((r = 1; r <= ROUNDS; r++)); do
		((adk_pid)) && load "sse20-c$TTFE_CONC|adk" "http://127.0.0.1:$adk_port/run_sse" "$ADK_BODY" "${adk[@]}" -c "$TTFE_CONC"
		((h_pid)) && load "sse20-c$TTFE_CONC|harnest" "http://127.0.0.1:$h_port/responses" "$SSE_BODY" "${hs[@]}" -c "$TTFE_CONC"
	done
	((adk_pid)) && stop_pid "$adk_pid"
	((h_pid)) && stop_pid "$h_pid"
fi

# ---- a2a: blocking SendMessage, harnest against @a2a-js/sdk and a2a-go v2 ----------------------

if want a2a; then
	echo "== a2a: JSON-RPC SendMessage (blocking), answered with a message; harnest (bench/agents/echo) vs @a2a-js/sdk 1.3.0 and a2a-go v2.3.1"
	h_pid=0 js_pid=0 go_pid=0
	if ((have_harnest)); then
		h_port=$(free_port) || exit 1
		start_harnest harnest-a2a "$h_port" bench/agents/echo && h_pid=$started_pid
	fi
	if node_peer conformance/a2a-js; then
		js_port=$(free_port) || exit 1
		(cd conformance/a2a-js && exec node echo-server.mjs "$js_port") >"$tmp/a2a-js.log" 2>&1 &
		js_pid=$!
		pids+=("$js_pid")
		wait_ready a2a-js "$js_pid" tcp_ok "$js_port" || { stop_pid "$js_pid"; js_pid=0; }
	fi
	if (cd bench/peers/a2ago && go build -o "$tmp/a2ago" .) 2>"$tmp/a2ago-build.log"; then
		go_port=$(free_port) || exit 1
		"$tmp/a2ago" -addr "127.0.0.1:$go_port" >"$tmp/a2a-go.log" 2>&1 &
		go_pid=$!
		pids+=("$go_pid")
		wait_ready a2a-go "$go_pid" http_ok "$go_port" /healthz || { stop_pid "$go_pid"; go_pid=0; }
	else
		echo "!! bench/peers/a2ago did not build:"
		head -n 10 "$tmp/a2ago-build.log" | sed 's/^/     /'
	fi
	a2a=(-header "A2A-Version: 1.0" -expect "Echo: hello")
	for ((r = 1; r <= ROUNDS; r++)); do
		((js_pid)) && load "a2a|a2a-js" "http://127.0.0.1:$js_port/rpc" "$A2A_BODY" "${a2a[@]}"
		((go_pid)) && load "a2a|a2a-go" "http://127.0.0.1:$go_port/rpc" "$A2A_BODY" "${a2a[@]}"
		((h_pid)) && load "a2a|harnest" "http://127.0.0.1:$h_port/a2a" "$A2A_BODY" "${a2a[@]}"
	done
	for p in "$js_pid" "$go_pid" "$h_pid"; do
		((p)) && stop_pid "$p"
	done
fi

# ---- allocs: allocations per turn, in process -------------------------------------------------

if want allocs; then
	note "" "== allocs: one turn through the whole in-process server (bench/turnbench), -benchtime $BENCHTIME; per turn:"
	if go test -run '^$' -bench Turn -benchmem -benchtime "$BENCHTIME" ./bench/turnbench/ >"$tmp/allocs.log" 2>&1; then
		awk '/^BenchmarkTurn\// { name=$1; sub(/^BenchmarkTurn\//, "", name); sub(/-[0-9]+$/, "", name);
			printf "   %-22s %10.0f µs  %9s B  %6s allocs\n", name, $3/1000, $5, $7 }' "$tmp/allocs.log" | tee -a "$summary"
	else
		note "!! the turn benchmark failed (it builds the source tree, not HARNEST_BIN):"
		tail -n 15 "$tmp/allocs.log" | sed 's/^/     /' | tee -a "$summary"
	fi
fi

# ---- growth, memory: costs as the data grows, on each store -----------------------------------

# each_store FN: run FN NAME FLAGS... for the embedded store and, with redis-server, a fresh
# real one (its process ID in store_pid, 0 for the embedded store).
each_store() {
	local fn=$1 port r_port r_pid
	store_pid=0
	"$fn" embedded
	if ((have_redis)); then
		r_port=$(free_port) || return 1
		start_redis "redis-$fn" "$r_port" || return 1
		r_pid=$started_pid
		store_pid=$r_pid
		"$fn" redis-server --redis-url "redis://127.0.0.1:$r_port"
		stop_pid "$r_pid"
		store_pid=0
	else
		note "   (redis-server is not on PATH: embedded store only)"
	fi
}

growth_on() {
	local name=$1 port
	shift
	port=$(free_port) || return 1
	start_harnest "harnest-growth-$name" "$port" "$APP" "$@" || return 1
	local pid=$started_pid
	note "-- $name store"
	"$tmp/growth" -url "http://127.0.0.1:$port" -turn-at "$GROWTH_TURN_AT" -page-at "$GROWTH_PAGE_AT" \
		-list-at "$GROWTH_LIST_AT" 2>&1 | sed 's/^/   /' | tee -a "$summary"
	stop_pid "$pid"
}

memory_on() {
	local name=$1 port
	shift
	port=$(free_port) || return 1
	start_harnest "harnest-memory-$name" "$port" "$APP" "$@" || return 1
	local pid=$started_pid
	note "-- $name store"
	"$tmp/turnmem" -url "http://127.0.0.1:$port" -pid "$pid" -store-pid "$store_pid" -at "$MEMORY_AT" -c "$CONC" 2>&1 |
		sed 's/^/   /' | tee -a "$summary"
	stop_pid "$pid"
}

if want growth && ((have_harnest)); then
	note "" "== growth: median latency one call at a time, over a probe of fixed size timed after each call, and its ratio to the smallest size (target: flat, ±20 %)"
	each_store growth_on
fi

# ---- idle and fanout: many connections --------------------------------------------------------

if want idle && ((have_harnest)); then
	note "" "== idle: $IDLE_N idle connections, server RSS per connection (target: <= 32 KiB each); embedded store"
	port=$(free_port) || exit 1
	if start_harnest harnest-followers "$port" bench/agents/stream20; then
		pid=$started_pid
		"$tmp/followers" -url "http://127.0.0.1:$port" -pid "$pid" -n "$IDLE_N" -deltas 20 2>&1 | sed 's/^/   /' | tee -a "$summary"
		stop_pid "$pid"
	fi
	port=$(free_port) || exit 1
	if start_harnest harnest-session-followers "$port" bench/agents/stream20; then
		pid=$started_pid
		"$tmp/followers" -session -url "http://127.0.0.1:$port" -pid "$pid" -n "$IDLE_N" -deltas 20 2>&1 | sed 's/^/   /' | tee -a "$summary"
		stop_pid "$pid"
	fi
	port=$(free_port) || exit 1
	if start_harnest harnest-live "$port" bench/agents/echo; then
		pid=$started_pid
		"$tmp/idlelive" -url "ws://127.0.0.1:$port/live" -pid "$pid" -n "$IDLE_N" 2>&1 | sed 's/^/   /' | tee -a "$summary"
		stop_pid "$pid"
	fi
fi

if want fanout && ((have_harnest)); then
	note "" "== fanout: one response, $FANOUT_DELTAS deltas, followed by $FANOUT_N SSE followers; embedded store"
	port=$(free_port) || exit 1
	if start_harnest harnest-fanout "$port" bench/agents/stream20; then
		pid=$started_pid
		"$tmp/followers" -url "http://127.0.0.1:$port" -pid "$pid" -n "$FANOUT_N" -deltas "$FANOUT_DELTAS" 2>&1 | sed 's/^/   /' | tee -a "$summary"
		stop_pid "$pid"
	fi
fi

if want memory && ((have_harnest)); then
	note "" "== memory: JSON turns (each a new session), RSS per stored turn; throughput of the first turns (target: within ±10 %)"
	each_store memory_on
fi

# ---- relay: the relay engineer's figures --------------------------------------------------------

if want relay; then
	note "" "== relay: go test -bench 'RelayedTurn|IdlePolls|Wake' ./relay/ (in process, the source tree)"
	if go test -run '^$' -bench 'RelayedTurn|IdlePolls|Wake' -benchmem ./relay/ >"$tmp/relay.log" 2>&1; then
		grep -E '^Benchmark' "$tmp/relay.log" | sed 's/^/   /' | tee -a "$summary"
	else
		note "!! the relay benchmarks failed:"
		tail -n 15 "$tmp/relay.log" | sed 's/^/     /' | tee -a "$summary"
	fi
fi

echo
echo "== results ($(date -u +%Y-%m-%dT%H:%MZ), $(nproc 2>/dev/null || echo '?') cores shared, $((SECONDS - begin)) s)"
if [[ -s $results ]]; then
	"$tmp/report" \
		-target 'json:harnest-embedded/baseline>=0.5' \
		-target 'json-redis:harnest-redis/baseline>=0.35' \
		-target 'sse20:harnest/adk>=3' \
		-target "sse20-c$TTFE_CONC:harnest/adk>=3" \
		-target 'a2a:harnest/a2a-js>=2' \
		-target 'a2a:harnest/a2a-go>=1' \
		-ttfe "sse20-c$TTFE_CONC:harnest<=1" \
		"$results"
fi
if ((!have_harnest)); then
	echo
	echo "(harnest was not measured: no ratio yet)"
fi
if [[ -s $summary ]]; then
	cat "$summary"
fi
if [[ -n $RESULTS ]]; then
	cp "$results" "$RESULTS" && echo "raw results: $RESULTS"
fi
