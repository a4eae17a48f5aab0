package a2a

import (
	"encoding/json"
	"slices"

	"github.com/harnest/harnest/internal/contract"
)

// ContractExtensionURI names the card extension that shows a typed
// agent's contract (spec.inputSchema, spec.outputSchema): its params are
// {"inputSchema"?: <JSON Schema>, "outputSchema"?: <JSON Schema>}. A typed
// agent takes exactly one data part (application/json) that matches the
// input schema, and answers with a data part beside its text.
const ContractExtensionURI = "https://harnest.dev/a2a/ext/contract/v1"

// addContract shows an agent's typed contract on its card: the extension
// above, and application/json among the default input (and output) modes.
func addContract(card map[string]any, c *contract.Contract) {
	if c == nil {
		return
	}
	params := map[string]any{}
	if s := c.InputSchema(); s != nil {
		params["inputSchema"] = json.RawMessage(s.JSON())
		card["defaultInputModes"] = withMode(card["defaultInputModes"], "application/json")
	}
	if s := c.OutputSchema(); s != nil {
		params["outputSchema"] = json.RawMessage(s.JSON())
		card["defaultOutputModes"] = withMode(card["defaultOutputModes"], "application/json")
	}
	caps, _ := card["capabilities"].(map[string]any)
	exts, _ := caps["extensions"].([]any)
	caps["extensions"] = append(exts, map[string]any{
		"uri":         ContractExtensionURI,
		"description": "The agent's typed contract: send one data part matching inputSchema; the answer's data part matches outputSchema.",
		"required":    false,
		"params":      params,
	})
}

// withMode is a list of modes with mode in it.
func withMode(modes any, mode string) []any {
	list, _ := modes.([]any)
	if slices.Contains(list, any(mode)) {
		return list
	}
	return append(list, mode)
}
