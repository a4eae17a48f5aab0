package a2a

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
	"unicode/utf8"
)

// ProtoJSON parsers accept a field by its proto name (message_id) as well
// as by its JSON name (messageId), and clients use both: the 0.3 HTTP+JSON
// binding is ProtoJSON, and some clients send proto names in 1.0 too. The
// decoders read camelCase; camelKeys rewrites proto names to it first, in
// every request body and JSON-RPC params. The contents of metadata and
// data (the caller's own JSON) are left as they are.

// opaqueFields hold caller JSON whose keys are not A2A field names.
var opaqueFields = map[string]bool{"metadata": true, "data": true, "params": true}

// camelKeys returns raw with every snake_case key of the A2A objects
// rewritten in camelCase. When both spellings of a field are present, the
// camelCase one wins. Anything it cannot read is returned unchanged, for
// the decoder to report.
func camelKeys(raw json.RawMessage) json.RawMessage {
	if !hasSnakeKey(raw) || !utf8.Valid(raw) {
		return raw
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return raw
	}
	if !renameKeys(v) {
		return raw
	}
	out, err := json.Marshal(v)
	if err != nil {
		return raw
	}
	return out
}

// hasSnakeKey reports whether some object key of the JSON text holds an
// underscore: a quick scan of its strings and what follows each, so that
// the common request (camelCase keys, values such as "ROLE_USER") skips
// the decode and re-encode. A false answer for text that is not JSON
// leaves it to the decoder to report.
func hasSnakeKey(raw []byte) bool {
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		underscore := false
		for i++; i < len(raw) && raw[i] != '"'; i++ {
			switch raw[i] {
			case '\\':
				i++ // the escaped byte
			case '_':
				underscore = true
			}
		}
		if !underscore {
			continue
		}
		j := i + 1
		for j < len(raw) && (raw[j] == ' ' || raw[j] == '\t' || raw[j] == '\n' || raw[j] == '\r') {
			j++
		}
		if j < len(raw) && raw[j] == ':' {
			return true
		}
	}
	return false
}

// renameKeys rewrites the keys of v in place; it reports whether any
// changed.
func renameKeys(v any) bool {
	changed := false
	switch t := v.(type) {
	case map[string]any:
		for k, child := range t {
			if opaqueFields[k] {
				continue
			}
			if renameKeys(child) {
				changed = true
			}
		}
		for k, child := range t {
			c := camelCase(k)
			if c == k {
				continue
			}
			changed = true
			delete(t, k)
			if _, taken := t[c]; !taken {
				t[c] = child
			}
		}
	case []any:
		for _, item := range t {
			if renameKeys(item) {
				changed = true
			}
		}
	}
	return changed
}

// camelCase turns a proto field name into its JSON name: message_id is
// messageId. Other names are returned as they are.
func camelCase(name string) string {
	if !strings.Contains(name, "_") || strings.HasPrefix(name, "_") || strings.HasSuffix(name, "_") {
		return name
	}
	parts := strings.Split(name, "_")
	var b strings.Builder
	b.WriteString(parts[0])
	for _, p := range parts[1:] {
		if p == "" {
			return name
		}
		b.WriteString(strings.ToUpper(p[:1]) + p[1:])
	}
	return b.String()
}

// queryValue reads a query parameter by its JSON name or, when absent, its
// proto name (historyLength or history_length).
func queryValue(v url.Values, name string) string {
	if s := v.Get(name); s != "" {
		return s
	}
	return v.Get(snakeCase(name))
}

// snakeCase turns a JSON name into its proto name: pageSize is page_size.
func snakeCase(name string) string {
	var b strings.Builder
	for _, r := range name {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
