package testutil

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// clusterMasters is how many masters a test cluster has: the fewest
// redis-cli --cluster create accepts.
const clusterMasters = 3

// clusterBusOffset is how far above a node's port Redis opens its cluster
// bus (the node-to-node port), unless told otherwise.
const clusterBusOffset = 10000

// ClusterOptions shape the cluster StartClusterWith starts.
type ClusterOptions struct {
	// Replicas is how many replicas each of the three masters has: 0 (three
	// nodes) or 1 (six nodes, as redis-cli --cluster create
	// --cluster-replicas 1 pairs them).
	Replicas int
	// NodeTimeout is cluster-node-timeout: how long a node may not answer
	// before the others count it as failed and promote its replica. Default
	// 5 s; a failover test sets 1-2 s, so that a failover takes a few
	// seconds.
	NodeTimeout time.Duration
}

// Cluster is a Redis Cluster on loopback, started for one test by
// StartCluster or StartClusterWith and stopped when the test ends.
type Cluster struct {
	// URL reaches the whole cluster in the form redisstore.Open accepts:
	// the first node as the URL's host, the others as addr= parameters.
	URL string
	// Addrs are the nodes' host:port addresses, in creation order.
	Addrs []string

	dir   string                  // the nodes' files and logs
	procs map[string]*clusterProc // by address
}

// clusterProc is one node's redis-server process.
type clusterProc struct {
	cmd       *exec.Cmd
	killed    bool // by Kill, and waited for
	firstSlot int  // the first slot it served when Kill killed it
}

// StartCluster starts a three-master Redis Cluster with no replicas (see
// StartClusterWith).
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	return StartClusterWith(t, ClusterOptions{})
}

// StartClusterWith starts redis-server processes in cluster mode on free
// loopback ports (three, or six with a replica each), joins them into one
// cluster with redis-cli --cluster create, and waits until every node says
// cluster_state:ok with every node known and every replica in sync with
// its master. Every process is killed and its files removed when the test
// ends. Without redis-server or redis-cli the test is skipped, or fails
// with HARNEST_REQUIRE_REDIS=1.
func StartClusterWith(t testing.TB, o ClusterOptions) *Cluster {
	t.Helper()
	if o.Replicas < 0 || o.Replicas > 1 {
		t.Fatalf("cluster: %d replicas per master; 0 or 1 are supported", o.Replicas)
	}
	if o.NodeTimeout <= 0 {
		o.NodeTimeout = 5 * time.Second
	}
	server, cli := clusterPrograms(t)
	nodes := clusterMasters * (1 + o.Replicas)
	c := &Cluster{dir: t.TempDir(), procs: map[string]*clusterProc{}} // the directory is removed after the processes are killed (cleanups run last first)
	ports, err := clusterPorts(nodes)
	if err != nil {
		t.Fatalf("cluster: %v", err)
	}
	for _, port := range ports {
		cmd, err := startClusterNode(server, c.dir, port, o.NodeTimeout)
		if err != nil {
			t.Fatalf("cluster: %v", err)
		}
		addr := "127.0.0.1:" + strconv.Itoa(port)
		proc := &clusterProc{cmd: cmd}
		c.procs[addr] = proc
		t.Cleanup(func() {
			if !proc.killed {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
			}
		})
		c.Addrs = append(c.Addrs, addr)
	}
	for _, addr := range c.Addrs {
		if err := waitAccepting(addr, 5*time.Second); err != nil {
			t.Fatalf("cluster: %v; its log: %s", err, nodeLog(c.dir, addr))
		}
	}
	if err := createCluster(cli, c.Addrs, o.Replicas); err != nil {
		t.Fatalf("cluster: %v", err)
	}
	for _, addr := range c.Addrs {
		if err := waitClusterOK(addr, nodes, 15*time.Second); err != nil {
			t.Fatalf("cluster: %v; its log: %s", err, nodeLog(c.dir, addr))
		}
	}
	for _, addr := range c.Addrs {
		if err := waitReplicaInSync(addr, 15*time.Second); err != nil {
			t.Fatalf("cluster: %v; its log: %s", err, nodeLog(c.dir, addr))
		}
	}
	c.URL = "redis://" + c.Addrs[0] + "?addr=" + strings.Join(c.Addrs[1:], "&addr=")
	return c
}

// clusterPrograms finds redis-server and redis-cli, or skips (fails with
// HARNEST_REQUIRE_REDIS=1) when either is missing.
func clusterPrograms(t testing.TB) (server, cli string) {
	t.Helper()
	var missing []string
	server, err := exec.LookPath("redis-server")
	if err != nil {
		missing = append(missing, "redis-server")
	}
	cli, err = exec.LookPath("redis-cli")
	if err != nil {
		missing = append(missing, "redis-cli")
	}
	if len(missing) > 0 {
		verb := " is"
		if len(missing) > 1 {
			verb = " are"
		}
		why := strings.Join(missing, " and ") + verb + " not on PATH (apt-get install redis-server brings both)"
		if os.Getenv(RequireRedisEnv) == "1" {
			t.Fatalf("Redis Cluster required (%s=1) but %s", RequireRedisEnv, why)
		}
		t.Skip("skipping the Redis Cluster test: " + why)
	}
	return server, cli
}

// clusterPorts picks n distinct free loopback ports whose cluster bus
// ports (port+10000) are free too.
func clusterPorts(n int) ([]int, error) {
	var ports []int
	taken := map[int]bool{}
	for attempt := 0; len(ports) < n && attempt < 200; attempt++ {
		port, err := FreePort()
		if err != nil {
			return nil, err
		}
		bus := port + clusterBusOffset
		if bus > 65535 || taken[port] || taken[bus] || !portFree(bus) {
			continue
		}
		taken[port], taken[bus] = true, true
		ports = append(ports, port)
	}
	if len(ports) < n {
		return nil, fmt.Errorf("found only %d of %d free loopback ports with a free cluster bus port", len(ports), n)
	}
	return ports, nil
}

// portFree reports whether a loopback TCP port can be listened on now.
func portFree(port int) bool {
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// startClusterNode starts one redis-server in cluster mode on port, its
// node file and log in dir, nothing persisted.
func startClusterNode(bin, dir string, port int, nodeTimeout time.Duration) (*exec.Cmd, error) {
	p := strconv.Itoa(port)
	logFile, err := os.Create(filepath.Join(dir, "redis-"+p+".log"))
	if err != nil {
		return nil, err
	}
	defer logFile.Close() // the child keeps its own copy
	cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", p, "--protected-mode", "yes",
		"--cluster-enabled", "yes", "--cluster-config-file", filepath.Join(dir, "nodes-"+p+".conf"),
		"--cluster-node-timeout", strconv.FormatInt(nodeTimeout.Milliseconds(), 10), "--dir", dir, "--save", "", "--appendonly", "no")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start redis-server on port %s: %w", p, err)
	}
	return cmd, nil
}

// nodeLog is the end of a node's log, for a failure message.
func nodeLog(dir, addr string) string {
	_, port, _ := net.SplitHostPort(addr)
	b, err := os.ReadFile(filepath.Join(dir, "redis-"+port+".log"))
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// waitAccepting waits until addr accepts TCP connections.
func waitAccepting(addr string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", addr, 100*time.Millisecond); err == nil {
			c.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("redis-server did not accept connections on %s within %s", addr, within)
}

// createCluster runs redis-cli --cluster create over addrs, with replicas
// replicas per master; it returns once redis-cli says the nodes agree.
func createCluster(cli string, addrs []string, replicas int) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	args := append([]string{"--cluster", "create"}, addrs...)
	args = append(args, "--cluster-replicas", strconv.Itoa(replicas), "--cluster-yes")
	out, err := exec.CommandContext(ctx, cli, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("redis-cli %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// waitClusterOK waits until the node at addr answers CLUSTER INFO with
// cluster_state:ok, every slot assigned and all nodes known.
func waitClusterOK(addr string, nodes int, within time.Duration) error {
	deadline := time.Now().Add(within)
	var info string
	var err error
	for time.Now().Before(deadline) {
		info, err = clusterCommand(addr, "CLUSTER", "INFO")
		if err == nil && clusterReady(info, nodes) {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("CLUSTER INFO on %s: %w", addr, err)
	}
	return fmt.Errorf("the node at %s is not ready within %s; CLUSTER INFO says:\n%s", addr, within, info)
}

// clusterReady reports whether a CLUSTER INFO reply says the cluster
// serves every slot with all nodes known.
func clusterReady(info string, nodes int) bool {
	want := map[string]string{
		"cluster_state":          "ok",
		"cluster_slots_ok":       "16384",
		"cluster_known_nodes":    strconv.Itoa(nodes),
		"cluster_slots_assigned": "16384",
	}
	for line := range strings.SplitSeq(info, "\n") {
		key, value, _ := strings.Cut(strings.TrimSpace(line), ":")
		if w, ok := want[key]; ok && w == value {
			delete(want, key)
		}
	}
	return len(want) == 0
}

// waitReplicaInSync waits, when the node at addr is a replica, until its
// link to its master is up (its first sync done), so that it can be
// promoted; a master is ready at once.
func waitReplicaInSync(addr string, within time.Duration) error {
	deadline := time.Now().Add(within)
	var info string
	var err error
	for time.Now().Before(deadline) {
		info, err = clusterCommand(addr, "INFO", "replication")
		if err == nil && (infoField(info, "role") == "master" || infoField(info, "master_link_status") == "up") {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		return fmt.Errorf("INFO replication on %s: %w", addr, err)
	}
	return fmt.Errorf("the replica at %s is not in sync with its master within %s; INFO replication says:\n%s", addr, within, info)
}

// infoField is the value of one field of an INFO or CLUSTER INFO reply.
func infoField(info, field string) string {
	for line := range strings.SplitSeq(info, "\n") {
		key, value, _ := strings.Cut(strings.TrimSpace(line), ":")
		if key == field {
			return value
		}
	}
	return ""
}

// clusterCommand sends one command to one node and returns its reply, a
// bulk string, simple string or integer as text (an error reply is an
// error), with every step bounded.
func clusterCommand(addr string, args ...string) (string, error) {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(2 * time.Second))
	var req strings.Builder
	fmt.Fprintf(&req, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&req, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := io.WriteString(conn, req.String()); err != nil {
		return "", err
	}
	r := bufio.NewReader(conn)
	header, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	header = strings.TrimRight(header, "\r\n")
	switch {
	case strings.HasPrefix(header, "+"), strings.HasPrefix(header, ":"):
		return header[1:], nil
	case strings.HasPrefix(header, "-"):
		return "", fmt.Errorf("%s answered %s", addr, header[1:])
	case strings.HasPrefix(header, "$"):
		size, err := strconv.Atoi(header[1:])
		if err != nil || size < 0 {
			return "", fmt.Errorf("unexpected reply %q", header)
		}
		body := make([]byte, size)
		if _, err := io.ReadFull(r, body); err != nil {
			return "", err
		}
		return string(body), nil
	}
	return "", fmt.Errorf("unexpected reply %q", header)
}
