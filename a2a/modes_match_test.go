package a2a

import "testing"

// TestInputModesMatch: how the card's modes take a part's media type.
func TestInputModesMatch(t *testing.T) {
	text := "x"
	card := map[string]any{
		"defaultInputModes": []any{"text/plain", "Image/*"},
		"skills": []any{map[string]any{"inputModes": []any{"application/json; charset=utf-8", "audio"}},
			map[string]any{"id": "none"}},
	}
	m := inputModesOf(card)
	for part, want := range map[*Part]bool{
		{Text: &text}: true, // text is text/plain
		{Text: &text, MediaType: "text/markdown"}:        false, // ... unless it says otherwise
		{Text: &text, MediaType: "TEXT/PLAIN; q=1"}:      true,  // case and parameters do not count
		{URL: "u", MediaType: "image/png"}:               true,  // image/*
		{Data: []byte(`{}`)}:                             true,  // data is JSON, a skill's mode
		{URL: "u", MediaType: "audio/ogg"}:               true,  // "audio": every audio type
		{URL: "u", MediaType: "application/pdf"}:         false,
		{Raw: []byte("x")}:                               false, // no type: application/octet-stream
		{URL: "u", MediaType: "not a media type at all"}: false,
	} {
		if got := m.takes(partMediaType(*part)); got != want {
			t.Errorf("part %+v (%s): taken %v, want %v", *part, partMediaType(*part), got, want)
		}
	}
	if inputModesOf(map[string]any{}) != nil || !inputModesOf(map[string]any{"defaultInputModes": []any{"*/*"}}).takes("application/pdf") {
		t.Error("a card without modes, or with */*, must take everything")
	}
}
