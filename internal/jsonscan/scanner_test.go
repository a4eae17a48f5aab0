package jsonscan

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// FuzzScanner checks the scanner against encoding/json: a value it checks
// is valid JSON, and a string it decodes is what encoding/json decodes.
func FuzzScanner(f *testing.F) {
	for _, seed := range []string{`"a\u00e9\ud83d\ude00\ud800x"`, `[1,-0.5e3,{"a":null}]`, `"\ud800\u0041"`, `01`, `{"a" 1}`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !utf8.Valid(data) {
			return
		}
		var s Scanner
		s.Reset(data)
		raw, ok := s.Value()
		if ok && !json.Valid(raw) {
			t.Fatalf("scanner accepted %q, which is not JSON", raw)
		}
		s.Reset(data)
		got, ok := s.StringValue()
		if !ok {
			return
		}
		var want string
		if err := json.Unmarshal(data[:s.Pos()], &want); err != nil || got != want {
			t.Fatalf("string %q: decoded %q, encoding/json %q (%v)", data[:s.Pos()], got, want, err)
		}
	})
}

// TestMembers walks an object and an array member by member.
func TestMembers(t *testing.T) {
	var s Scanner
	s.Reset([]byte(` { "a" : [1, {"b":null}] , "c\u0041":"x" } `))
	if !s.Enter('{') {
		t.Fatal("Enter({) refused an object")
	}
	var keys []string
	for {
		key, escaped, ok := s.NextKey()
		if !ok {
			break
		}
		keys = append(keys, string(key))
		if string(key) == "a" {
			if !s.Enter('[') {
				t.Fatal("Enter([) refused an array")
			}
			items := 0
			for s.NextItem() {
				if _, ok := s.Value(); !ok {
					t.Fatal("an item did not read")
				}
				items++
			}
			if items != 2 {
				t.Fatalf("%d items, want 2", items)
			}
			continue
		}
		if !escaped {
			t.Errorf("key %q: escaped false, want true", key)
		}
		if v, ok := s.StringValue(); !ok || v != "x" {
			t.Fatalf("value of %q: %q %v", key, v, ok)
		}
	}
	if len(keys) != 2 || keys[0] != "a" || keys[1] != `c\u0041` || !s.AtEnd() {
		t.Fatalf("keys %q, at end %v", keys, s.AtEnd())
	}
}
