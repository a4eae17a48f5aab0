# bench/lib.sh — the helpers of bench/run.sh (sourced by it, not run alone): processes it
# starts and stops, readiness checks, one measured load run, the Node peers. They use run.sh's
# variables: tmp, results, summary, pids, started_pid, CONC, DURATION, WARMUP, SECTIONS,
# HARNEST_FLAGS, PEERS_INSTALL.

# want SECTION: 0 if the section was asked for.
want() {
	[[ " $SECTIONS " == *" $1 "* ]]
}

# note LINE...: print and keep for the summary at the end.
note() {
	printf '%s\n' "$@" | tee -a "$summary"
}

# stop_pid PID: TERM, wait up to 5s, then KILL; forget it. Only for processes we started.
stop_pid() {
	local pid=$1 i p keep=()
	for p in "${pids[@]}"; do
		[[ $p == "$pid" ]] || keep+=("$p")
	done
	pids=("${keep[@]}")
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

# tcp_ok PORT: 0 if something accepts connections on the port.
tcp_ok() {
	(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
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

# wait_ready NAME PID CHECK...: bounded retry (30s) while the process lives.
wait_ready() {
	local name=$1 pid=$2 i
	shift 2
	for ((i = 0; i < 300; i++)); do
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "!! $name exited before it was ready; last log lines:"
			tail -n 20 "$tmp/$name.log" | sed 's/^/     /'
			return 1
		fi
		"$@" && return 0
		sleep 0.1
	done
	echo "!! $name not ready after 30s; last log lines:"
	tail -n 20 "$tmp/$name.log" | sed 's/^/     /'
	return 1
}

# free_port: a loopback port that was free a moment ago.
free_port() {
	"$tmp/freeport"
}

# load LABEL URL BODY [loadclient flags...]: one measured run (CONC workers unless -c is
# given again), appended to the results.
load() {
	local label=$1 url=$2 body=$3 out rc rps fail extra=""
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
	if [[ $out == *'"ttfeP50Ms"'* ]]; then
		extra="  TTFE p50 $(sed -n 's/.*"ttfeP50Ms":\([0-9.e+]*\).*/\1/p' <<<"$out") ms"
	fi
	printf '   %-28s %10.0f req/s  failures %s%s\n' "$label" "$rps" "$fail" "$extra"
	if [[ $fail != 0 ]]; then
		printf '      first failure: %.200s\n' "$(sed -n 's/.*"firstError":"\([^"]*\)".*/\1/p' <<<"$out")"
	fi
}

# start_harnest NAME PORT FOLDER [extra flags...]: serve a fresh copy of the agent folder.
# HARNEST_REDIS_URL is removed from the environment so that "embedded" is really the
# embedded store; redis runs pass --redis-url explicitly.
start_harnest() {
	local name=$1 port=$2 folder=$3
	shift 3
	rm -rf "$tmp/app-$name"
	cp -R "$folder" "$tmp/app-$name" || return 1
	# shellcheck disable=SC2086 # HARNEST_FLAGS is split on purpose
	env -u HARNEST_REDIS_URL "$tmp/harnest" serve "$tmp/app-$name" --host 127.0.0.1 --port "$port" \
		$HARNEST_FLAGS "$@" >"$tmp/$name.log" 2>&1 &
	started_pid=$!
	pids+=("$started_pid")
	wait_ready "$name" "$started_pid" http_ok "$port" /healthz
}

# start_redis NAME PORT: a fresh redis-server without persistence.
start_redis() {
	local name=$1 port=$2
	redis-server --bind 127.0.0.1 --port "$port" --save "" --appendonly no >"$tmp/$name.log" 2>&1 &
	started_pid=$!
	pids+=("$started_pid")
	wait_ready "$name" "$started_pid" redis_ok "$port"
}

# node_peer DIR: 0 if node runs and DIR has its node_modules (npm ci first when
# PEERS_INSTALL=1); says why not otherwise.
node_peer() {
	local dir=$1
	if ! command -v node >/dev/null; then
		echo "   (node is not installed: skipping the peer in $dir)"
		return 1
	fi
	[[ -d $dir/node_modules ]] && return 0
	if [[ $PEERS_INSTALL != 1 ]]; then
		echo "   ($dir/node_modules is missing and PEERS_INSTALL=$PEERS_INSTALL: skipping that peer)"
		return 1
	fi
	echo "   npm ci in $dir (once; about 2 minutes for ADK)"
	if ! (cd "$dir" && npm ci --no-audit --no-fund >"$tmp/npm.log" 2>&1); then
		echo "!! npm ci in $dir failed; last lines:"
		tail -n 10 "$tmp/npm.log" | sed 's/^/     /'
		return 1
	fi
}
