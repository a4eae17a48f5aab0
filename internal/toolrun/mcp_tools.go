package toolrun

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// listTools reads the server's tools (every page) and makes them entries:
// named "<server>__<tool>", approval as configured, the input schema
// compiled (one that does not compile is logged, and the tool is offered
// without validation).
func (m *mcpServer) listTools(ctx context.Context, session *mcp.ClientSession) ([]*entry, error) {
	var entries []*entry
	for t, err := range session.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		raw := schemaJSON(t.InputSchema)
		schema, err := CompileSchema(raw)
		if err != nil {
			m.logger.Warn("an MCP tool's input schema does not compile; the tool is offered without checking its arguments",
				"tool", t.Name, "err", err)
			schema = nil
		}
		entries = append(entries, &entry{
			tool: Tool{
				Name:        qualifiedName(m.cfg.Name, t.Name),
				Description: t.Description,
				Parameters:  raw,
				Approval:    m.cfg.Approval.Needs(t.Name),
				Kind:        KindMCP,
				Server:      m.cfg.Name,
			},
			schema:     schema,
			server:     m,
			remoteName: t.Name,
		})
	}
	return entries, nil
}
