package a2a

// testCard declares JSON-RPC at /a2a and HTTP+JSON at /rest, both
// versions each.
func testCard(base string, streaming bool) map[string]any {
	return map[string]any{
		"name": "Echo", "description": "Echoes.", "version": "1.0.0",
		"supportedInterfaces": []any{
			map[string]any{"url": base + "/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
			map[string]any{"url": base + "/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
			map[string]any{"url": base + "/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
			map[string]any{"url": base + "/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "0.3"},
		},
		"capabilities":       map[string]any{"streaming": streaming},
		"defaultInputModes":  []any{"text/plain"},
		"defaultOutputModes": []any{"text/plain"},
		// The skill takes data and files besides the card's text (A2A
		// refuses the parts of other types, modes.go).
		"skills": []any{map[string]any{"id": "echo", "name": "Echo", "description": "Echoes.", "tags": []any{"echo"},
			"inputModes": []any{"text/plain", "application/json", "image/*", "application/octet-stream"}}},
	}
}

// dig walks a decoded JSON value by keys and indexes.
func dig(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			l, _ := v.([]any)
			if k >= len(l) {
				return nil
			}
			v = l[k]
		}
	}
	return v
}

// str is the string at the path of a decoded JSON value, or "".
func str(v any, path ...any) string {
	s, _ := dig(v, path...).(string)
	return s
}
