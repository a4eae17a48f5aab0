package alive

import (
	"context"
	"errors"
	"fmt"
)

// Check validates an alive extension entry (one item of a card's
// capabilities.extensions, already decoded from JSON or YAML) and, when it
// names an alive_json file, fetches and checks that file once through the
// guard o describes. It returns the look the extension shows: the params'
// look, colors and display name, with the file filling what the params
// leave out. A non-nil error says why the whole extension must be
// dropped.
func Check(ctx context.Context, ext map[string]any, o Options) (Look, error) {
	if r, ok := ext["required"]; ok && r != false && r != nil {
		return Look{}, errors.New("required must be false: the alive extension only describes the agent's look")
	}
	params, ok := ext["params"].(map[string]any)
	if !ok {
		return Look{}, errors.New("params must be a mapping with look or alive_json")
	}
	for k := range params {
		switch k {
		case "look", "colors", "display_name", "alive_json":
		default:
			return Look{}, fmt.Errorf("params.%s is not an alive parameter (look, colors, display_name, alive_json)", clip(k))
		}
	}
	_, hasLook := params["look"]
	_, hasFile := params["alive_json"]
	if !hasLook && !hasFile {
		return Look{}, errors.New("params needs look or alive_json")
	}
	look, err := lookFields(params, "display_name", "params.")
	if err != nil {
		return Look{}, err
	}
	if hasFile {
		raw, ok := params["alive_json"].(string)
		if !ok {
			return Look{}, errors.New("params.alive_json must be an https URL")
		}
		fromFile, err := fetch(ctx, raw, o)
		if err != nil {
			return Look{}, fmt.Errorf("params.alive_json: %w", err)
		}
		look = look.orElse(fromFile)
	}
	return look, nil
}

// Find returns the first alive extension of a card's
// capabilities.extensions list and its index; false when there is none.
func Find(extensions []any) (ext map[string]any, index int, found bool) {
	for i, item := range extensions {
		m, _ := item.(map[string]any)
		if uri, _ := m["uri"].(string); uri == ExtensionURI {
			return m, i, true
		}
	}
	return nil, -1, false
}
