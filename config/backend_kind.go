package config

// Kind names the backend that is set: echo, exec, model, a2a, relay or
// router ("" when none is). Metrics labels and the router's owner page use
// it.
func (b Backend) Kind() string {
	switch {
	case b.Router != nil:
		return "router"
	case b.Relay != nil:
		return "relay"
	case b.Model != nil:
		return "model"
	case b.Exec != nil:
		return "exec"
	case b.A2A != nil:
		return "a2a"
	case b.Echo != nil:
		return "echo"
	}
	return ""
}
