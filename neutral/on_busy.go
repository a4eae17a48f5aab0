package neutral

import (
	"encoding/json"

	"github.com/harnest/harnest/runtime"
)

// onBusyField reads "onBusy": what to do when the session is busy — reject
// (409, as before), enqueue, interrupt or rollback; absent for the agent's
// default (spec.onBusy).
func onBusyField(obj map[string]json.RawMessage) (string, error) {
	v, has, err := stringField(obj, "onBusy")
	if err != nil {
		return "", err
	}
	if has && (v == "" || !runtime.ValidOnBusy(v)) {
		return "", fieldError{"onBusy", "must be reject, enqueue, interrupt or rollback"}
	}
	return v, nil
}
