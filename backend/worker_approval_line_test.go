package backend

import (
	"strings"
	"testing"
)

// An approval_request's answers and argumentsSchema are read and checked.
func TestApprovalRequestAnswers(t *testing.T) {
	m, err := decodeWorkerLine([]byte(`{"type":"approval_request","id":"r","requestId":"q","action":"send","answers":["edit","respond"],"argumentsSchema":{"type":"object"}}`))
	if err != nil || strings.Join(m.Answers, ",") != "edit,respond" || string(m.ArgumentsSchema) != `{"type":"object"}` {
		t.Fatalf("decoded %+v, %v", m, err)
	}
	for _, line := range []string{
		`{"type":"approval_request","id":"r","requestId":"q","action":"send","answers":["maybe"]}`,
		`{"type":"approval_request","id":"r","requestId":"q","action":"send","answers":"edit"}`,
		`{"type":"approval_request","id":"r","requestId":"q","action":"send","argumentsSchema":[1]}`,
	} {
		if _, err := decodeWorkerLine([]byte(line)); err == nil {
			t.Errorf("%s was taken", line)
		}
	}
}
