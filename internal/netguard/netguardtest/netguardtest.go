package netguardtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sync"
	"time"
)

// Resolver answers LookupNetIP from a table of host → addresses and never
// touches DNS; a host not in the table is not found.
type Resolver map[string][]netip.Addr

// LookupNetIP returns r[host], or an error when host is not in r.
func (r Resolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if a, ok := r[host]; ok {
		return a, nil
	}
	return nil, errors.New("no such host")
}

// ErrNotDialled is what RecordingDialer answers (wrapped, with the address)
// for any address outside loopback: the attempt is recorded, nothing leaves
// the machine.
var ErrNotDialled = errors.New("test dialer: not dialling outside loopback")

// RecordingDialer records every address it is asked to dial, and dials only
// loopback. The zero value is ready to use; Dial fits netguard.Policy.Dial.
type RecordingDialer struct {
	mu    sync.Mutex
	calls []string
}

// Dial records address, then dials it if it is a loopback IP address
// (within 2 s) and answers ErrNotDialled otherwise.
func (d *RecordingDialer) Dial(ctx context.Context, network, address string) (net.Conn, error) {
	d.mu.Lock()
	d.calls = append(d.calls, address)
	d.mu.Unlock()
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return nil, err
	}
	if a, err := netip.ParseAddr(host); err != nil || !a.IsLoopback() {
		return nil, fmt.Errorf("%w: %s", ErrNotDialled, address)
	}
	return (&net.Dialer{Timeout: 2 * time.Second}).DialContext(ctx, network, address)
}

// Dialled returns a copy of the addresses Dial was asked for, in order.
func (d *RecordingDialer) Dialled() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.calls...)
}

// Count returns how many times Dial was called.
func (d *RecordingDialer) Count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.calls)
}
