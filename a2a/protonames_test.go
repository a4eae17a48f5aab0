package a2a

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestCamelKeys(t *testing.T) {
	in := `{"message":{"message_id":"m","context_id":"c","role":"ROLE_USER","reference_task_ids":["t"],` +
		`"metadata":{"keep_me":1},"content":[{"text":"hi"},{"data":{"data":{"also_kept":true}}},` +
		`{"file":{"file_with_uri":"https://x/a","mime_type":"text/plain"}}]},` +
		`"configuration":{"history_length":2,"historyLength":3,"return_immediately":true},"metadata":{"a_b":1}}`
	var got, want any
	if err := json.Unmarshal(camelKeys(json.RawMessage(in)), &got); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal([]byte(`{"message":{"messageId":"m","contextId":"c","role":"ROLE_USER","referenceTaskIds":["t"],`+
		`"metadata":{"keep_me":1},"content":[{"text":"hi"},{"data":{"data":{"also_kept":true}}},`+
		`{"file":{"fileWithUri":"https://x/a","mimeType":"text/plain"}}]},`+
		`"configuration":{"historyLength":3,"returnImmediately":true},"metadata":{"a_b":1}}`), &want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("camelKeys\n got %v\nwant %v", got, want)
	}
	for _, raw := range []string{`{"messageId":"m"}`, `not json_at_all`, "{\"a_b\":\"\xff\"}"} {
		if string(camelKeys(json.RawMessage(raw))) != raw {
			t.Errorf("%q changed", raw)
		}
	}
	for in, want := range map[string]string{"message_id": "messageId", "a": "a", "_x": "_x", "x_": "x_", "a__b": "a__b"} {
		if got := camelCase(in); got != want {
			t.Errorf("camelCase(%q) = %q", in, got)
		}
	}
	if snakeCase("historyLength") != "history_length" {
		t.Error(snakeCase("historyLength"))
	}
}

func TestHasSnakeKey(t *testing.T) {
	for raw, want := range map[string]bool{
		`{"message":{"role":"ROLE_USER","parts":[{"text":"a_b"}]}}`: false,
		`{"message":{"message_id":"m"}}`:                            true,
		`{"a" : 1, "b_c"  :2}`:                                      true,
		`{"text":"say \"x_y\": now"}`:                               false,
		`{"k\"_":1}`:                                                true,
		`["a_b", "c_d"]`:                                            false,
		`{"metadata":{"seat_no":1}}`:                                true,
		`{"a_b"`:                                                    false,
		``:                                                          false,
	} {
		if got := hasSnakeKey([]byte(raw)); got != want {
			t.Errorf("hasSnakeKey(%s) = %v, want %v", raw, got, want)
		}
	}
}
