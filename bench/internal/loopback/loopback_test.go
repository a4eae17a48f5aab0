package loopback

import (
	"strings"
	"testing"
)

func TestCheckURL(t *testing.T) {
	allowed := []string{
		"http://127.0.0.1:8080/responses",
		"http://127.3.4.5/",
		"http://[::1]:9000/x",
		"http://localhost:1234/",
		"https://LOCALHOST/",
		"http://[::ffff:127.0.0.1]:80/",
		"ws://127.0.0.1:1907/live",
	}
	for _, u := range allowed {
		if err := CheckURL(u); err != nil {
			t.Errorf("CheckURL(%q) = %v, want nil", u, err)
		}
	}
	refused := []string{
		"http://10.0.0.1/",
		"http://example.com/",
		"http://0.0.0.0:80/",
		"http://192.168.1.1:8080/responses",
		"http://[2001:db8::1]/",
		"http://localhost.example.com/",
		"http://127.0.0.1.nip.io/",
		"http://no-such-host.invalid/",
		"ws://10.1.2.3/live",
		"ftp://127.0.0.1/",
		"127.0.0.1:8080",
		"",
	}
	for _, u := range refused {
		err := CheckURL(u)
		if err == nil {
			t.Errorf("CheckURL(%q) = nil, want an error", u)
			continue
		}
		if strings.Contains(u, "://") && !strings.HasPrefix(u, "ftp") && !strings.Contains(err.Error(), "only target loopback") {
			t.Errorf("CheckURL(%q) error %q does not say benches only target loopback", u, err)
		}
	}
}

func TestDialControl(t *testing.T) {
	if err := DialControl("tcp", "127.0.0.1:80", nil); err != nil {
		t.Errorf("127.0.0.1: %v", err)
	}
	if err := DialControl("tcp", "[::1]:80", nil); err != nil {
		t.Errorf("::1: %v", err)
	}
	if err := DialControl("tcp", "10.0.0.1:80", nil); err == nil {
		t.Error("10.0.0.1 allowed, want refused")
	}
}
