package config

// RelaySpec is spec.relay: what the relay offers the outside agents that
// pair with this server (whatever the backend is).
type RelaySpec struct {
	// ToolsAtHome lets paired outside agents call the agent's server tools
	// (spec.tools and the tools of spec.mcpServers) that the owner granted
	// them: the pairing exchange then also returns a callback token and
	// each inbox item a signed run note.
	ToolsAtHome bool `yaml:"toolsAtHome"`
}
