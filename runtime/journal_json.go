package runtime

import (
	"context"
	"encoding/json"
)

// RecordJSON records v as JSON under key (see Record).
func (j *Journal) RecordJSON(ctx context.Context, key string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return j.Record(ctx, key, data)
}

// RecallJSON reads what an earlier attempt recorded under key into a T;
// false when nothing was recorded or it does not read as a T.
func RecallJSON[T any](j *Journal, key string) (T, bool) {
	var v T
	data, ok := j.Recall(key)
	if !ok || json.Unmarshal(data, &v) != nil {
		var zero T
		return zero, false
	}
	return v, true
}
