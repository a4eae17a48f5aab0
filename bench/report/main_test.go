package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestReportRatio(t *testing.T) {
	in := strings.Join([]string{
		`{"label":"json|baseline","requests":100,"reqPerSec":1000}`,
		`{"label":"json|harnest-embedded","requests":100,"reqPerSec":600}`,
		`{"label":"json|baseline","requests":100,"reqPerSec":1000}`,
		`{"label":"json|harnest-embedded","requests":100,"failures":5,"firstError":"HTTP 500","reqPerSec":400}`,
		`{"label":"sse|baseline","requests":10,"reqPerSec":100,"sse":{"eventsPerSec":600}}`,
	}, "\n")
	results, err := readResults(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	write(&out, results, "json", 0.5)
	s := out.String()
	for _, want := range []string{"0.50", "0.60 0.40", "PASS (>= 0.50)", "WARNING: json|harnest-embedded: 5 of 100"} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "sse  harnest") {
		t.Errorf("no sse comparison expected:\n%s", s)
	}
}
