package store

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"
)

// How memory search reads text, the same for every implementation: a
// token is a run of letters and digits, lower-cased, of 2 to
// maxTokenBytes bytes; an item has at most MaxItemTokens distinct tokens
// (the first found: key, text, then the value's strings), a query at most
// MaxQueryTokens.
const (
	MaxItemTokens  = 512
	MaxQueryTokens = 32
	maxTokenBytes  = 64
)

// MemoryTokens are the distinct tokens of an item: of its key, its text
// and the strings of its value (object keys and string values).
func MemoryTokens(item MemoryItem) []string {
	t := tokenizer{seen: map[string]bool{}, max: MaxItemTokens}
	t.add(item.Key)
	t.add(item.Text)
	t.addJSON(item.Value)
	return t.out
}

// QueryTokens are the distinct tokens of a search query.
func QueryTokens(query string) []string {
	t := tokenizer{seen: map[string]bool{}, max: MaxQueryTokens}
	t.add(query)
	return t.out
}

type tokenizer struct {
	seen map[string]bool
	out  []string
	max  int
}

func (t *tokenizer) add(text string) {
	for _, w := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len(t.out) >= t.max {
			return
		}
		w = strings.ToLower(w)
		if len(w) < 2 || len(w) > maxTokenBytes || !utf8.ValidString(w) || t.seen[w] {
			continue
		}
		t.seen[w] = true
		t.out = append(t.out, w)
	}
}

// addJSON adds the strings of a JSON value (object keys and string
// values), in order.
func (t *tokenizer) addJSON(value json.RawMessage) {
	if len(value) == 0 {
		return
	}
	dec := json.NewDecoder(bytes.NewReader(value))
	for len(t.out) < t.max {
		tok, err := dec.Token()
		if err != nil {
			return
		}
		if s, ok := tok.(string); ok {
			t.add(s)
		}
	}
}

// Cosine is the cosine similarity of two vectors (0 when their lengths
// differ or either is zero).
func Cosine(a, b []float32) float64 {
	if len(a) != len(b) || len(a) == 0 {
		return 0
	}
	var dot, na, nb float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}

// MemoryTokenWeight is what a query token adds to the score of an item
// that has it, when df of the scope's n items have it: its inverse
// document frequency, ln(1 + n/df), so that rare words count more than
// common ones.
func MemoryTokenWeight(n, df int) float64 {
	if df < 1 {
		return 0
	}
	return math.Log(1 + float64(n)/float64(df))
}
