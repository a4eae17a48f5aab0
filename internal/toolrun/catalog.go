package toolrun

import (
	"encoding/json"
	"strings"

	"github.com/harnest/harnest/config"
)

// maxToolName is the longest tool name models accept.
const maxToolName = 64

// entry is one tool of the set with what it takes to run it.
type entry struct {
	tool   Tool
	schema *Schema // nil: only "a JSON object" is checked (an MCP schema that did not compile)

	exec *config.ToolExec // KindExec

	server     *mcpServer // KindMCP
	remoteName string     // KindMCP: the tool's name on its server
}

// catalog is an immutable snapshot of the set's tools; the set replaces it
// whenever an MCP server's tools change.
type catalog struct {
	list   []Tool
	byName map[string]*entry
	// unavailable names the tools of MCP servers that are down (as they
	// were last listed), so that a call says so rather than "no such tool".
	unavailable map[string]*mcpServer
}

// rebuild makes a new catalog from the fixed tools and every MCP server's
// current tools. An MCP tool whose name is already taken is left out and
// logged.
func (s *Set) rebuild() {
	s.rebuildMu.Lock()
	defer s.rebuildMu.Unlock()

	c := &catalog{byName: map[string]*entry{}, unavailable: map[string]*mcpServer{}}
	add := func(e *entry) {
		c.list = append(c.list, e.tool)
		c.byName[e.tool.Name] = e
	}
	reserved := map[string]bool{}
	for _, e := range s.execs {
		reserved[e.tool.Name] = true
		add(e)
	}
	for _, e := range s.clients {
		reserved[e.tool.Name] = true
	}
	for _, m := range s.servers {
		entries, connected := m.currentEntries()
		if !connected {
			for _, e := range entries {
				c.unavailable[e.tool.Name] = m
			}
			continue
		}
		for _, e := range entries {
			if reserved[e.tool.Name] {
				s.logger.Warn("an MCP tool is not offered: its name is already taken by another tool",
					"server", e.tool.Server, "tool", e.remoteName, "name", e.tool.Name)
				continue
			}
			reserved[e.tool.Name] = true
			add(e)
		}
	}
	for _, e := range s.clients {
		add(e)
	}
	for name := range c.unavailable {
		if reserved[name] {
			delete(c.unavailable, name)
		}
	}
	s.catalog.Store(c)
}

// qualifiedName is what the model calls an MCP tool: "<server>__<tool>",
// with every character outside [A-Za-z0-9_-] replaced by "_", cut to 64.
func qualifiedName(server, tool string) string {
	var b strings.Builder
	for _, r := range server + "__" + tool {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() == maxToolName {
			break
		}
	}
	return b.String()
}

// schemaJSON is an MCP tool's input schema as JSON, or the empty object
// schema when it has none.
func schemaJSON(schema any) json.RawMessage {
	if schema == nil {
		return emptyObjectSchema
	}
	raw, err := json.Marshal(schema)
	if err != nil || string(raw) == "null" {
		return emptyObjectSchema
	}
	return raw
}
