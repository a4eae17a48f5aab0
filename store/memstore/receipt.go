package memstore

// isFinalReceipt reports whether a receipt (a response envelope, JSON) has
// a final status: completed, failed, cancelled or denied, as
// store.IsFinalReceipt decides. It is decided once, when the receipt is
// written, and reads only the top-level "status" field: it walks the JSON
// without decoding it, so it costs no allocation.
func isFinalReceipt(b []byte) bool {
	depth := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			end := stringEnd(b, i)
			if depth == 1 && string(b[i+1:end]) == "status" {
				j := skipSpace(b, end+1)
				if j < len(b) && b[j] == ':' { // a key, not a value
					j = skipSpace(b, j+1)
					if j >= len(b) || b[j] != '"' {
						return false
					}
					return finalStatus(string(b[j+1 : stringEnd(b, j)]))
				}
			}
			i = end
		}
	}
	return false
}

// finalStatus reports whether a receipt status is final.
func finalStatus(status string) bool {
	switch status {
	case "completed", "failed", "cancelled", "denied":
		return true
	}
	return false
}

// stringEnd returns the index of the quote that closes the JSON string
// opened at b[start] (len(b) when it is not closed).
func stringEnd(b []byte, start int) int {
	for i := start + 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(b)
}

// skipSpace returns the index of the first byte from i that is not JSON
// whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}
