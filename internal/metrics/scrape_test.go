package metrics_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/harnest/harnest/server/servertest"
)

// scrape reads GET /metrics as ts's token and parses the text format.
func scrape(t *testing.T, ts *servertest.Server) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.DefaultClient.Do(ts.Request("GET", "/metrics", "", nil))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /metrics: status %d", resp.StatusCode)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("GET /metrics is not the Prometheus text format: %v", err)
	}
	return families
}

// settled scrapes until no response is active any more (every turn has
// ended and been counted), for at most 5 s.
func settled(t *testing.T, ts *servertest.Server) map[string]*dto.MetricFamily {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		families := scrape(t, ts)
		if value(families, "harnest_responses_active", nil) == 0 {
			return families
		}
		if time.Now().After(deadline) {
			t.Fatalf("harnest_responses_active stayed %v", value(families, "harnest_responses_active", nil))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// value is the sum, over the metrics of the family whose labels include
// every one of labels, of their value: a counter's or gauge's value, a
// histogram's sample count. A family or metric that is not there is 0.
func value(families map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	family := families[name]
	if family == nil {
		return 0
	}
	sum := 0.0
	for _, m := range family.GetMetric() {
		if !hasLabels(m, labels) {
			continue
		}
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		}
	}
	return sum
}

func hasLabels(m *dto.Metric, want map[string]string) bool {
	have := map[string]string{}
	for _, l := range m.GetLabel() {
		have[l.GetName()] = l.GetValue()
	}
	for k, v := range want {
		if have[k] != v {
			return false
		}
	}
	return true
}

// expect checks metrics against exact values; each key is a name and its
// labels as name|k=v|k=v (route patterns hold braces and commas).
func expect(t *testing.T, families map[string]*dto.MetricFamily, want map[string]float64) {
	t.Helper()
	for key, v := range want {
		name, labels := parseKey(key)
		if got := value(families, name, labels); got != v {
			t.Errorf("%s = %v, want %v", key, got, v)
		}
	}
}

func parseKey(key string) (string, map[string]string) {
	parts := strings.Split(key, "|")
	labels := map[string]string{}
	for _, pair := range parts[1:] {
		k, v, _ := strings.Cut(pair, "=")
		labels[k] = v
	}
	return parts[0], labels
}

// labelValues lists every label value of every metric.
func labelValues(families map[string]*dto.MetricFamily) []string {
	var out []string
	for _, f := range families {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				out = append(out, l.GetValue())
			}
		}
	}
	return out
}
