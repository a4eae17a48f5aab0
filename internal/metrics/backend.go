package metrics

import "github.com/harnest/harnest/config"

// BackendKind names the configured backend for the backend label: echo,
// exec, model, a2a, relay or router ("unknown" when none is set).
func BackendKind(b config.Backend) string {
	if k := b.Kind(); k != "" {
		return k
	}
	return "unknown"
}
