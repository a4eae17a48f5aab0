package storetest

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/harnest/harnest/store"
)

// BenchJournalStep measures the store's share of one step of a turn (a
// model reply of four events), one step after the other on one run: with
// a resume point (RecordPoint: the events and the point in one write), or
// without (AppendEvents: the flush that logs the same events).
func BenchJournalStep(b *testing.B, s store.Store, point bool) {
	ctx := context.Background()
	sid, rid := newID(), "resp_"+newID()
	if _, err := s.BeginResponse(ctx, store.Begin{User: "u", Session: sid, ResponseID: rid, CreateSession: true,
		Receipt: []byte(`{"status":"in_progress"}`), Lease: time.Hour, Now: "t"}); err != nil {
		b.Fatal(err)
	}
	data := []byte(`{"text":"Looking it up.","toolCalls":[{"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{\"q\":\"weather\"}"}}]}`)
	b.ReportAllocs()
	b.ResetTimer()
	seq := 0
	for i := 0; i < b.N; i++ {
		events := make([]store.Event, 4)
		for j := range events {
			events[j] = store.Event{Sequence: seq, Type: "response.text.delta",
				JSON: []byte(`{"type":"response.text.delta","sequence":` + strconv.Itoa(seq) + `,"delta":"word "}`)}
			seq++
		}
		var err error
		if point {
			err = s.RecordPoint(ctx, store.ResumePoint{User: "u", Session: sid, ResponseID: rid, Epoch: 1,
				Key: "model/" + strconv.Itoa(i), Data: data, Sequence: seq - 1, Events: events})
		} else {
			err = s.AppendEvents(ctx, "u", sid, rid, 1, events)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}
