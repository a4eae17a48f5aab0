// Package proc reads what the benchmark's programs measure of another
// process on this machine (Linux only): its resident memory and the CPU
// time it used.
package proc

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// RSSKiB reads a process's resident set size (VmRSS) in KiB.
func RSSKiB(pid int) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, fmt.Errorf("read the memory of process %d (is it running?): %w", pid, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmRSS:") {
			f := strings.Fields(line)
			if len(f) >= 2 {
				return strconv.ParseInt(f[1], 10, 64)
			}
		}
	}
	return 0, fmt.Errorf("process %d has no VmRSS line in /proc/%d/status", pid, pid)
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's CPU times; it is
// 100 on every Linux this runs on.
const clockTicks = 100

// CPUTime reads the user plus system CPU time a process has used so far
// (10 ms resolution).
func CPUTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, fmt.Errorf("read the CPU time of process %d (is it running?): %w", pid, err)
	}
	return parseStat(string(b))
}

// parseStat reads utime and stime (fields 14 and 15) from a /proc/PID/stat
// line. The command name (field 2) is in parentheses and may hold spaces,
// so fields are counted after its closing parenthesis.
func parseStat(stat string) (time.Duration, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, fmt.Errorf("malformed /proc stat line %q", stat)
	}
	f := strings.Fields(stat[i+1:])
	// f[0] is field 3 (state), so utime (14) is f[11] and stime (15) f[12].
	if len(f) < 13 {
		return 0, fmt.Errorf("short /proc stat line %q", stat)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("malformed CPU times in /proc stat line %q", stat)
	}
	return time.Duration(utime+stime) * time.Second / clockTicks, nil
}
