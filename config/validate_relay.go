package config

// relaySpec checks spec.relay.
func (v *validator) relaySpec(s Spec) {
	if s.Relay.ToolsAtHome && len(s.Tools) == 0 && len(s.MCPServers) == 0 {
		v.problem("spec.relay.toolsAtHome", "needs tools to offer: declare them in spec.tools or spec.mcpServers, or set toolsAtHome: false")
	}
	v.relayClientTools(s)
}

// relayClientTools refuses client tools that only tools at home (not a
// model) would see: outside agents call server tools only.
func (v *validator) relayClientTools(s Spec) {
	if s.Relay.ToolsAtHome && s.Backend.Model == nil && len(s.ClientTools) > 0 {
		v.problem("spec.clientTools", "only the model backend offers client tools; tools at home offers spec.tools and spec.mcpServers only")
	}
}
