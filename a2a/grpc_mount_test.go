package a2a

import (
	"net/url"
	"strings"
	"testing"
)

func TestGRPCInterfacesInTheCard(t *testing.T) {
	iface := func(u, v string) map[string]any {
		return map[string]any{"supportedInterfaces": []any{map[string]any{"url": u, "protocolBinding": "GRPC", "protocolVersion": v}}}
	}
	for _, ok := range []string{"127.0.0.1:1907", "dns:///agents.example.com:443", "https://agents.example.com:443", "https://agents.example.com", "http://127.0.0.1:1907/"} {
		mounts, err := parseMounts(iface(ok, v10))
		if err != nil || len(mounts) != 1 || mounts[0].binding != bindingGRPC {
			t.Errorf("%s: %v %+v", ok, err, mounts)
		}
	}
	for _, bad := range []string{"", "127.0.0.1", "http://127.0.0.1:1907/a2a", "grpc service"} {
		if _, err := parseMounts(iface(bad, v10)); err == nil || !strings.Contains(err.Error(), "host:port") {
			t.Errorf("%q: %v", bad, err)
		}
	}
	if _, err := parseMounts(iface("127.0.0.1:1907", v03)); err == nil || !strings.Contains(err.Error(), "1.0") {
		t.Errorf("GRPC for 0.3: %v", err)
	}
	for base, want := range map[string]string{"https://agents.example.com": "agents.example.com:443",
		"http://10.0.0.1:8080/x": "10.0.0.1:8080", "http://[::1]": "[::1]:80"} {
		u, _ := url.Parse(base)
		if got := servedGRPCURL("127.0.0.1:1907", u); got != want {
			t.Errorf("servedGRPCURL on %s = %s, want %s", base, got, want)
		}
	}
	for raw, want := range map[string]string{"http://127.0.0.1:1907": "127.0.0.1:1907", "https://a.example.com": "a.example.com:443",
		"127.0.0.1:1907": "127.0.0.1:1907", "dns:///a.example.com:50051": "a.example.com:50051"} {
		if got := servedGRPCURL(raw, nil); got != want {
			t.Errorf("servedGRPCURL(%s) = %s, want %s", raw, got, want)
		}
	}
}
