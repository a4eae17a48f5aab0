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
		`{"label":"json-redis|baseline","requests":100,"reqPerSec":1000}`,
		`{"label":"json-redis|harnest-redis","requests":100,"reqPerSec":300}`,
		`{"label":"sse|baseline","requests":10,"reqPerSec":100,"sse":{"eventsPerSec":600}}`,
	}, "\n")
	results, err := readResults(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	target, err := parseRatioTarget("json:harnest-embedded/baseline>=0.5")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	write(&out, results, []ratioTarget{target}, nil)
	s := out.String()
	for _, want := range []string{"0.50", "0.60 0.40", "meets (>= 0.50)", "WARNING: json|harnest-embedded: 5 of 100", "json-redis  harnest-redis"} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "sse  harnest") {
		t.Errorf("no sse comparison expected:\n%s", s)
	}
}

// A peer reference (no "baseline") and a time-to-first-event target.
func TestReportPeerAndTTFE(t *testing.T) {
	in := strings.Join([]string{
		`{"label":"sse20|adk","requests":100,"reqPerSec":1000,"sse":{"ttfeP50Ms":3}}`,
		`{"label":"sse20|harnest","requests":100,"reqPerSec":2000,"sse":{"ttfeP50Ms":0.8}}`,
		`{"label":"a2a|a2a-js","requests":100,"reqPerSec":1000}`,
		`{"label":"a2a|harnest","requests":100,"reqPerSec":3000}`,
		`{"label":"sse20-c8|harnest","requests":100,"reqPerSec":2000,"sse":{"ttfeP50Ms":0.9}}`,
		`{"label":"sse20-c8|harnest","requests":100,"reqPerSec":2000,"sse":{"ttfeP50Ms":1.3}}`,
	}, "\n")
	results, err := readResults(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var targets []ratioTarget
	for _, s := range []string{"sse20:harnest/adk>=3", "a2a:harnest/a2a-js>=2", "a2a:harnest/a2a-go>=1"} {
		tg, err := parseRatioTarget(s)
		if err != nil {
			t.Fatal(err)
		}
		targets = append(targets, tg)
	}
	tt, err := parseTTFETarget("sse20-c8:harnest<=1")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	write(&out, results, targets, []ttfeTarget{tt})
	s := out.String()
	for _, want := range []string{"2.00", "misses (< 3.00)", "3.00", "meets (>= 2.00)", "not measured (>= 1.00)", "1.100", "0.900 1.300", "misses (> 1 ms)"} {
		if !strings.Contains(s, want) {
			t.Errorf("report lacks %q:\n%s", want, s)
		}
	}
}

func TestParseTargets(t *testing.T) {
	for _, bad := range []string{"", "json", "json:harnest", "json:harnest/baseline", "json:harnest/baseline>=x", ":a/b>=1", "json:/b>=1"} {
		if _, err := parseRatioTarget(bad); err == nil {
			t.Errorf("parseRatioTarget(%q) = nil error", bad)
		}
	}
	for _, bad := range []string{"", "sse:harnest", "sse:harnest<=0", "sse:<=1"} {
		if _, err := parseTTFETarget(bad); err == nil {
			t.Errorf("parseTTFETarget(%q) = nil error", bad)
		}
	}
}
