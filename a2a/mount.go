package a2a

import (
	"fmt"
	"net/url"
	"sort"
	"strings"
)

// Bindings harnest serves.
const (
	bindingJSONRPC = "JSONRPC"
	bindingREST    = "HTTP+JSON"
	bindingGRPC    = "GRPC" // served beside the mux (grpc.go)
)

// Spec versions harnest serves, as A2A-Version and protocolVersion name
// them (Major.Minor).
const (
	v10 = "1.0"
	v03 = "0.3"
)

// mount is one route of the card's supportedInterfaces: a binding at a URL
// path, serving one or both spec versions. Interfaces that share binding
// and path share the mount.
type mount struct {
	binding  string
	path     string // "/" or "/a2a": no trailing slash
	versions map[string]bool
}

// versionList names the versions of a mount for messages: "1.0, 0.3".
func (m mount) versionList() string {
	var vs []string
	for v := range m.versions {
		vs = append(vs, v)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(vs)))
	return strings.Join(vs, ", ")
}

// normalizeBinding reads a protocolBinding: JSONRPC; HTTP+JSON (also
// HTTPJSON, REST); GRPC; "" for anything else.
func normalizeBinding(b string) string {
	n := strings.NewReplacer("-", "", "_", "", " ", "").Replace(strings.ToUpper(strings.TrimSpace(b)))
	switch n {
	case "JSONRPC":
		return bindingJSONRPC
	case "HTTP+JSON", "HTTPJSON", "REST":
		return bindingREST
	case "GRPC":
		return bindingGRPC
	}
	return ""
}

// parseMounts reads the card's supportedInterfaces. An interface harnest
// cannot serve is a start-up error that names it.
func parseMounts(card map[string]any) ([]mount, error) {
	raw, _ := card["supportedInterfaces"].([]any)
	var mounts []mount
	index := map[string]int{}
	for i, item := range raw {
		where := fmt.Sprintf("agent-card.yaml supportedInterfaces[%d]", i)
		iface, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: expected a mapping with url, protocolBinding and protocolVersion", where)
		}
		rawBinding, _ := iface["protocolBinding"].(string)
		binding := normalizeBinding(rawBinding)
		if binding == "" {
			return nil, fmt.Errorf("%s: protocolBinding %q is not served by harnest; use JSONRPC, HTTP+JSON or GRPC", where, clip(rawBinding))
		}
		version, _ := iface["protocolVersion"].(string)
		if version != v10 && version != v03 {
			return nil, fmt.Errorf("%s: protocolVersion %q is not served by harnest; use \"1.0\" or \"0.3\"", where, clip(version))
		}
		rawURL, _ := iface["url"].(string)
		if binding == bindingGRPC {
			if err := checkGRPCInterface(rawURL, version); err != nil {
				return nil, fmt.Errorf("%s: %w", where, err)
			}
			if _, ok := index[bindingGRPC]; !ok {
				index[bindingGRPC] = len(mounts)
				mounts = append(mounts, mount{binding: bindingGRPC, path: "/", versions: map[string]bool{version: true}})
			}
			continue
		}
		u, err := url.Parse(rawURL)
		if err != nil || u.Scheme == "" || u.Host == "" {
			return nil, fmt.Errorf("%s: url %q must be an absolute URL", where, clip(rawURL))
		}
		path := strings.TrimRight(u.Path, "/")
		if path == "" {
			path = "/"
		}
		if strings.ContainsAny(path, "{}* \t") || u.RawQuery != "" || u.Fragment != "" {
			return nil, fmt.Errorf("%s: url %q must be a plain path without query, fragment, braces or spaces", where, clip(rawURL))
		}
		key := binding + " " + path
		if j, ok := index[key]; ok {
			mounts[j].versions[version] = true
			continue
		}
		index[key] = len(mounts)
		mounts = append(mounts, mount{binding: binding, path: path, versions: map[string]bool{version: true}})
	}
	return mounts, nil
}

// prefix is the path that REST routes follow: "" at the root.
func (m mount) prefix() string {
	if m.path == "/" {
		return ""
	}
	return m.path
}
