package netguard

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harnest/harnest/internal/netguard/netguardtest"
)

func bracket(a string) string {
	if strings.Contains(a, ":") {
		return "[" + a + "]"
	}
	return a
}

func get(t *testing.T, c *http.Client, raw string) (*http.Response, error) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, raw, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err == nil {
		t.Cleanup(func() { resp.Body.Close() })
	}
	return resp, err
}

func refused(err error) bool {
	var re *RefusedError
	return errors.As(err, &re)
}

// TestAddressForms drives every form through a name that resolves to it
// and as a URL literal: the forbidden ones are refused before any dial;
// the public ones are dialled (at the checked address) over https only.
func TestAddressForms(t *testing.T) {
	cases := []struct {
		addr  string
		class Class // what it is judged as
		dial  string
	}{
		// Public.
		{"8.8.8.8", Public, "8.8.8.8:443"},
		{"93.184.216.34", Public, "93.184.216.34:443"},
		{"2606:4700:4700::1111", Public, "[2606:4700:4700::1111]:443"},
		{"::ffff:8.8.8.8", Public, "8.8.8.8:443"},
		{"::8.8.8.8", Public, "[::808:808]:443"},
		{"64:ff9b::8.8.8.8", Public, "[64:ff9b::808:808]:443"},
		{"2002:808:808::1", Public, "[2002:808:808::1]:443"},
		{"2001:0:4136:e378:8000:63bf:f7f7:f7f7", Public, "[2001:0:4136:e378:8000:63bf:f7f7:f7f7]:443"}, // Teredo: 65.54.227.120, client 8.8.8.8
		// IPv4.
		{"127.0.0.1", Loopback, ""},
		{"127.1.2.3", Loopback, ""},
		{"10.1.2.3", Private, ""},
		{"172.16.0.9", Private, ""},
		{"192.168.1.1", Private, ""},
		{"100.64.0.1", Shared, ""},
		{"169.254.169.254", LinkLocal, ""},
		{"224.0.0.1", Multicast, ""},
		{"0.0.0.0", Unspecified, ""},
		{"0.1.2.3", Reserved, ""},
		{"255.255.255.255", Broadcast, ""},
		{"192.0.2.1", Documentation, ""},
		{"198.51.100.7", Documentation, ""},
		{"203.0.113.9", Documentation, ""},
		{"198.18.0.1", Benchmarking, ""},
		{"198.19.255.1", Benchmarking, ""},
		{"240.0.0.1", Reserved, ""},
		{"192.0.0.8", Reserved, ""},
		// IPv6.
		{"::1", Loopback, ""},
		{"::", Unspecified, ""},
		{"fe80::1", LinkLocal, ""},
		{"fd00::1", Private, ""},
		{"fc00::1", Private, ""},
		{"ff02::1", Multicast, ""},
		{"fec0::1", Reserved, ""},
		{"100::1", Reserved, ""},
		{"2001:db8::1", Documentation, ""},
		{"3fff::1", Documentation, ""},
		{"2001:2::1", Benchmarking, ""},
		{"2001:10::1", Reserved, ""},
		{"5f00::1", Reserved, ""},
		// IPv4 inside IPv6.
		{"::ffff:127.0.0.1", Loopback, ""},
		{"::ffff:10.0.0.1", Private, ""},
		{"::ffff:169.254.169.254", LinkLocal, ""},
		{"::127.0.0.1", Loopback, ""},
		{"::169.254.169.254", LinkLocal, ""},
		{"::10.0.0.1", Private, ""},
		{"::0.0.0.2", Reserved, ""},
		{"::ffff:0:127.0.0.1", Loopback, ""},
		{"::ffff:0:169.254.169.254", LinkLocal, ""},
		{"64:ff9b::127.0.0.1", Loopback, ""},
		{"64:ff9b::10.0.0.1", Private, ""},
		{"64:ff9b::169.254.169.254", LinkLocal, ""},
		{"64:ff9b:1::808:808", Reserved, ""}, // local-use NAT64: refused outright
		{"2002:7f00:1::", Loopback, ""},
		{"2002:a9fe:a9fe::1", LinkLocal, ""},
		{"2002:a00:1::", Private, ""},
		{"2001:0:4136:e378:8000:63bf:f5ff:fffe", Private, ""},       // Teredo client 10.0.0.1
		{"2001:0:a00:1:8000:63bf:f7f7:f7f7", Private, ""},           // Teredo server 10.0.0.1
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", Documentation, ""}, // RFC 4380's example: client 192.0.2.45
	}
	for _, tc := range cases {
		t.Run(tc.addr, func(t *testing.T) {
			a := netip.MustParseAddr(tc.addr)
			if c, _ := Classify(a); c != tc.class {
				t.Fatalf("Classify(%s) = %v, want %v", tc.addr, c, tc.class)
			}
			for _, u := range []string{"https://target.example/x", "https://" + bracket(tc.addr) + "/x"} {
				d := &netguardtest.RecordingDialer{}
				c := Client(Policy{Resolver: netguardtest.Resolver{"target.example": {a}}, Dial: d.Dial}, 5*time.Second)
				_, err := get(t, c, u)
				got := d.Dialled()
				if tc.class == Public {
					if !errors.Is(err, netguardtest.ErrNotDialled) || len(got) != 1 || got[0] != tc.dial {
						t.Fatalf("%s: %v, dialled %v; want an attempt at %s", u, err, got, tc.dial)
					}
					continue
				}
				if !refused(err) || len(got) != 0 {
					t.Fatalf("%s: %v, dialled %v; want a refusal before any dial", u, err, got)
				}
				if !strings.Contains(err.Error(), tc.class.String()) {
					t.Errorf("%s: the refusal %q does not say the address is %s", u, err, tc.class)
				}
				if tc.class == LinkLocal || tc.class == Private || tc.class == Loopback {
					if !strings.Contains(err.Error(), "private, loopback or link-local") {
						t.Errorf("%s: the refusal %q does not say what is refused", u, err)
					}
				}
			}
			// Plain http never reaches a public address.
			d := &netguardtest.RecordingDialer{}
			c := Client(Policy{Resolver: netguardtest.Resolver{"target.example": {a}}, Dial: d.Dial, AllowHTTPLoopback: true}, 5*time.Second)
			if _, err := get(t, c, "http://target.example/x"); !refused(err) || len(d.Dialled()) != 0 {
				t.Fatalf("http: %v, dialled %v; want a refusal", err, d.Dialled())
			}
		})
	}
}

func TestRefusalsWithoutDial(t *testing.T) {
	pub := netip.MustParseAddr("93.184.216.34")
	res := netguardtest.Resolver{
		"mixed.example":  {pub, netip.MustParseAddr("10.0.0.1")},
		"public.example": {pub},
	}
	for name, c := range map[string]struct {
		url    string
		policy Policy
	}{
		"http to a public host":                {"http://public.example/", Policy{}},
		"http to a listed public host":         {"http://public.example/", Policy{AllowHosts: []string{"public.example"}, AllowHTTPLoopback: true}},
		"http to a literal public address":     {"http://93.184.216.34/", Policy{AllowHTTPLoopback: true}},
		"a name with one private address":      {"https://mixed.example/", Policy{}},
		"localhost":                            {"https://localhost/", Policy{}},
		"a localhost subdomain":                {"https://api.localhost./", Policy{}},
		"ftp":                                  {"ftp://public.example/", Policy{}},
		"http to listed loopback, no http":     {"http://127.0.0.1/", Policy{AllowHosts: []string{"127.0.0.1"}}},
		"http to listed private":               {"http://10.0.0.1/", Policy{AllowHosts: []string{"10.0.0.1"}, AllowHTTPLoopback: true}},
		"listed, but unspecified":              {"https://0.0.0.0/", Policy{AllowHosts: []string{"0.0.0.0"}}},
		"listed on another port":               {"https://10.0.0.1:8443/", Policy{AllowHosts: []string{"10.0.0.1:9443"}}},
		"zone-scoped link-local":               {"https://[fe80::1%25eth0]/", Policy{}},
		"metadata, mapped, through a hostname": {"https://md.example/", Policy{Resolver: netguardtest.Resolver{"md.example": {netip.MustParseAddr("::ffff:169.254.169.254")}}}},
	} {
		t.Run(name, func(t *testing.T) {
			d := &netguardtest.RecordingDialer{}
			p := c.policy
			if p.Resolver == nil {
				p.Resolver = res
			}
			p.Dial = d.Dial
			_, err := get(t, Client(p, 5*time.Second), c.url)
			if !refused(err) || len(d.Dialled()) != 0 {
				t.Fatalf("%v, dialled %v; want a refusal before any dial", err, d.Dialled())
			}
		})
	}
	// A listed host may be private over https: the dial is attempted.
	d := &netguardtest.RecordingDialer{}
	p := Policy{AllowHosts: []string{"10.0.0.1:8443"}, Dial: d.Dial}
	if _, err := get(t, Client(p, 5*time.Second), "https://10.0.0.1:8443/"); !errors.Is(err, netguardtest.ErrNotDialled) {
		t.Fatalf("listed private host: %v, want the dial attempted", err)
	}
}

// TestCheckedAtDialTime checks that every connection checks the address
// its name resolves to then: a name that first resolves to a public
// address and then to loopback (DNS rebinding) never reaches loopback.
func TestCheckedAtDialTime(t *testing.T) {
	answers := []netip.Addr{netip.MustParseAddr("93.184.216.34"), netip.MustParseAddr("127.0.0.1")}
	var mu sync.Mutex
	n := 0
	res := resolverFunc(func(context.Context, string, string) ([]netip.Addr, error) {
		mu.Lock()
		defer mu.Unlock()
		a := answers[min(n, len(answers)-1)]
		n++
		return []netip.Addr{a}, nil
	})
	d := &netguardtest.RecordingDialer{}
	c := Client(Policy{Resolver: res, Dial: d.Dial}, 5*time.Second)
	if _, err := get(t, c, "https://rebind.example/"); !errors.Is(err, netguardtest.ErrNotDialled) {
		t.Fatalf("first request: %v, want the public address dialled", err)
	}
	if _, err := get(t, c, "https://rebind.example/"); !refused(err) {
		t.Fatalf("second request: %v, want a refusal", err)
	}
	if got := d.Dialled(); len(got) != 1 || got[0] != "93.184.216.34:443" {
		t.Fatalf("dialled %v, want only the public address", got)
	}
}

type resolverFunc func(ctx context.Context, network, host string) ([]netip.Addr, error)

func (f resolverFunc) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	return f(ctx, network, host)
}

// tlsServer is a local https server reached as example.com (the name its
// test certificate carries) through the resolver.
func tlsServer(t *testing.T, h http.HandlerFunc) (base string, port string, p Policy, d *netguardtest.RecordingDialer) {
	t.Helper()
	ts := httptest.NewTLSServer(h)
	t.Cleanup(ts.Close)
	_, port, _ = net.SplitHostPort(ts.Listener.Addr().String())
	pool := x509.NewCertPool()
	pool.AddCert(ts.Certificate())
	d = &netguardtest.RecordingDialer{}
	p = Policy{
		Resolver:  netguardtest.Resolver{"example.com": {netip.MustParseAddr("127.0.0.1")}, "internal.example": {netip.MustParseAddr("10.0.0.1")}},
		Dial:      d.Dial,
		TLSConfig: &tls.Config{RootCAs: pool},
	}
	return "https://example.com:" + port, port, p, d
}

func TestLoopbackOnlyWhenListed(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("plain")) }))
	t.Cleanup(plain.Close)
	_, plainPort, _ := net.SplitHostPort(plain.Listener.Addr().String())
	base, port, p, d := tlsServer(t, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("tls")) })

	// https to a loopback name: refused, then allowed once listed (by
	// name, or by name and port).
	if _, err := get(t, Client(p, 5*time.Second), base+"/"); !refused(err) || len(d.Dialled()) != 0 {
		t.Fatalf("unlisted loopback over https: %v, dialled %v", err, d.Dialled())
	}
	for _, entry := range []string{"example.com", "EXAMPLE.com.", "example.com:" + port} {
		lp := p
		lp.AllowHosts = []string{entry}
		resp, err := get(t, Client(lp, 5*time.Second), base+"/")
		if err != nil {
			t.Fatalf("listed %q: %v", entry, err)
		}
		if b, _ := ReadLimited(resp, 100); string(b) != "tls" {
			t.Fatalf("listed %q: body %q", entry, b)
		}
	}
	lp := p
	lp.AllowHosts = []string{"example.com:1"}
	if _, err := get(t, Client(lp, 5*time.Second), base+"/"); !refused(err) {
		t.Fatalf("listed on another port: %v", err)
	}

	// Plain http to loopback: only listed, with AllowHTTPLoopback.
	for _, hp := range []Policy{
		{Dial: d.Dial, AllowHTTPLoopback: true},
		{Dial: d.Dial, AllowHosts: []string{"127.0.0.1"}},
	} {
		if _, err := get(t, Client(hp, 5*time.Second), plain.URL+"/"); !refused(err) {
			t.Fatalf("http loopback with %+v: %v", hp, err)
		}
	}
	for _, entry := range []string{"127.0.0.1", "127.0.0.1:" + plainPort} {
		hp := Policy{Dial: d.Dial, AllowHosts: []string{entry}, AllowHTTPLoopback: true}
		resp, err := get(t, Client(hp, 5*time.Second), plain.URL+"/")
		if err != nil {
			t.Fatalf("listed http loopback %q: %v", entry, err)
		}
		if b, _ := ReadLimited(resp, 100); string(b) != "plain" {
			t.Fatalf("body %q", b)
		}
	}
}

func TestRedirects(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("plain")) }))
	t.Cleanup(plain.Close)
	var base string
	base, _, p, d := tlsServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			_, _ = w.Write([]byte("ok"))
		case "/to-ok":
			http.Redirect(w, r, "/ok", http.StatusFound)
		case "/to-private":
			http.Redirect(w, r, "https://internal.example/", http.StatusFound)
		case "/to-metadata":
			http.Redirect(w, r, "https://[::ffff:169.254.169.254]/latest/meta-data/", http.StatusFound)
		case "/to-http":
			http.Redirect(w, r, plain.URL+"/", http.StatusFound)
		case "/loop":
			http.Redirect(w, r, "/loop", http.StatusFound)
		}
	})
	p.AllowHosts = []string{"example.com", "127.0.0.1"}
	p.AllowHTTPLoopback = true
	p.MaxRedirects = 3

	resp, err := get(t, Client(p, 5*time.Second), base+"/to-ok")
	if err != nil {
		t.Fatalf("a redirect within the host: %v", err)
	}
	if b, _ := ReadLimited(resp, 10); string(b) != "ok" {
		t.Fatalf("body %q", b)
	}
	for path, want := range map[string]string{
		"/to-private":  "10.0.0.1",
		"/to-metadata": "169.254.169.254",
		"/to-http":     "from https to http",
		"/loop":        "more than 3 redirects",
	} {
		before := len(d.Dialled())
		_, err := get(t, Client(p, 5*time.Second), base+path)
		if !refused(err) || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: %v, want a refusal naming %q", path, err, want)
		}
		for _, a := range d.Dialled()[before:] {
			if !strings.HasPrefix(a, "127.0.0.1:") {
				t.Fatalf("%s: dialled %s", path, a)
			}
		}
	}
	// No redirects at all by default.
	p.MaxRedirects = 0
	if _, err := get(t, Client(p, 5*time.Second), base+"/to-ok"); !refused(err) || !strings.Contains(err.Error(), "redirects are not followed") {
		t.Fatalf("redirect with MaxRedirects 0: %v", err)
	}
}

func TestReadLimitedAndTimeout(t *testing.T) {
	release := make(chan struct{})
	base, _, p, _ := tlsServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big":
			_, _ = w.Write([]byte(strings.Repeat("x", 1000)))
		case "/slow":
			select {
			case <-release:
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		}
	})
	defer close(release)
	p.AllowHosts = []string{"example.com"}
	c := Client(p, 5*time.Second)
	for _, tc := range []struct {
		limit int64
		cut   bool
	}{{10, true}, {999, true}, {1000, false}, {5000, false}} {
		resp, err := get(t, c, base+"/big")
		if err != nil {
			t.Fatal(err)
		}
		b, err := ReadLimited(resp, tc.limit)
		if tc.cut {
			if !errors.Is(err, ErrTooLarge) || int64(len(b)) != tc.limit {
				t.Fatalf("limit %d: %d bytes, %v; want the body cut with ErrTooLarge", tc.limit, len(b), err)
			}
		} else if err != nil || len(b) != 1000 {
			t.Fatalf("limit %d: %d bytes, %v", tc.limit, len(b), err)
		}
	}
	start := time.Now()
	_, err := get(t, Client(p, 200*time.Millisecond), base+"/slow")
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() || time.Since(start) > 3*time.Second {
		t.Fatalf("slow server: %v after %v, want a timeout", err, time.Since(start))
	}
}

func TestCheckURL(t *testing.T) {
	for raw, ok := range map[string]bool{
		"https://example.com/a":         true,
		"https://8.8.8.8/":              true,
		"https://[2606:4700::1]:8443/":  true,
		"http://example.com/":           false,
		"https://127.0.0.1/":            false,
		"https://[::ffff:127.0.0.1]/":   false,
		"https://[64:ff9b::a9fe:a9fe]/": false,
		"https://localhost:8080/":       false,
		"mailto:someone@example.com":    false,
		"/relative":                     false,
		"https://[::]/":                 false,
	} {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		if err := (Policy{}).CheckURL(u); (err == nil) != ok {
			t.Errorf("CheckURL(%s) = %v, want ok %v", raw, err, ok)
		}
	}
}

// TestNumericHosts: a host written as a number in a form other than the
// dotted quad (decimal, octal, hex, fewer parts) reads as an IPv4 address
// to some resolvers (inet_aton) and as a name to others. It is refused
// by CheckURL and before any dial, listed or not, whatever it would mean;
// the usual forms are not affected.
func TestNumericHosts(t *testing.T) {
	for host, means := range map[string]string{
		"2130706433":         "127.0.0.1",
		"0x7f000001":         "127.0.0.1",
		"0X7F000001":         "127.0.0.1",
		"127.1":              "127.0.0.1",
		"127.0.1":            "127.0.0.1",
		"0":                  "0.0.0.0",
		"0177.0.0.1":         "127.0.0.1",
		"0x7f.0.0.1":         "127.0.0.1",
		"127.0.0.01":         "127.0.0.1",
		"127.0.0.1.":         "127.0.0.1",
		"10.0x10203":         "10.1.2.3",
		"3232235777":         "192.168.1.1",
		"134744072":          "8.8.8.8", // public, and refused all the same
		"0x8.0x8.0x8.0x8":    "8.8.8.8",
		"017700000001":       "127.0.0.1",
		"4294967296":         "", // too large for an address
		"1.2.3.4.5":          "",
		"256.0.0.1":          "",
		"example.com.123":    "",
		"example.0x7f000001": "",
	} {
		t.Run(host, func(t *testing.T) {
			got, numeric := numericHost(host)
			if !numeric || (means == "" && got.IsValid()) || (means != "" && got.String() != means) {
				t.Fatalf("numericHost(%q) = %v, %v; want %q, true", host, got, numeric, means)
			}
			for _, p := range []Policy{{}, {AllowHosts: []string{host, means, "127.0.0.1"}, AllowHTTPLoopback: true}} {
				for _, scheme := range []string{"https", "http"} {
					raw := scheme + "://" + host + ":8443/hook"
					u, err := url.Parse(raw)
					if err != nil {
						t.Fatal(err)
					}
					if err := p.CheckURL(u); !refused(err) || !strings.Contains(err.Error(), host) {
						t.Errorf("CheckURL(%s) with %v = %v; want a refusal naming the host", raw, p.AllowHosts, err)
					}
					// Also when the resolver reads it as an address.
					d := &netguardtest.RecordingDialer{}
					p.Dial = d.Dial
					if a, err := netip.ParseAddr(means); err == nil {
						p.Resolver = netguardtest.Resolver{host: {a}, strings.TrimSuffix(host, "."): {a}}
					}
					if _, err := get(t, Client(p, 5*time.Second), raw); !refused(err) || len(d.Dialled()) != 0 {
						t.Errorf("GET %s: %v, dialled %v; want a refusal before any dial", raw, err, d.Dialled())
					}
				}
			}
		})
	}
	for _, host := range []string{"127.0.0.1", "8.8.8.8", "0.0.0.0", "::ffff:127.0.0.1", "example.com", "1.example", "a0x1.example", "example.com.", "123.example.com", "0x.example"} {
		if got, numeric := numericHost(host); numeric {
			t.Errorf("numericHost(%q) = %v, true; want false", host, got)
		}
	}
}
