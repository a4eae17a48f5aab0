package usageapi

import "github.com/harnest/harnest/store"

// Page is the body of GET /usage.
type Page struct {
	// User is whose usage it is; null for everyone's (?all=true).
	User *string `json:"user"`
	From string  `json:"from"`
	To   string  `json:"to"`
	// Days are the page's days with usage, newest first.
	Days []Day `json:"days"`
	// NextCursor is the next page's ?cursor=; null on the last page.
	NextCursor *string `json:"nextCursor"`
}

// Day is one UTC day's usage: its totals, and per backend and model.
type Day struct {
	Date string `json:"date"`
	Counts
	ByModel []ModelUsage `json:"byModel"`
}

// ModelUsage is a day's usage of one backend and model.
type ModelUsage struct {
	Backend string `json:"backend"`
	Model   string `json:"model"`
	Counts
}

// Counts are turns, tokens and cost.
type Counts struct {
	Turns        int64 `json:"turns"`
	InputTokens  int64 `json:"inputTokens"`
	OutputTokens int64 `json:"outputTokens"`
	TotalTokens  int64 `json:"totalTokens"`
	CostMicros   int64 `json:"costMicros"`
}

func countsOf(l store.UsageLine) Counts {
	return Counts{Turns: l.Turns, InputTokens: l.InputTokens, OutputTokens: l.OutputTokens,
		TotalTokens: l.InputTokens + l.OutputTokens, CostMicros: l.CostMicros}
}

// pageOf is the page of q's days that the store read.
func pageOf(q query, scope store.UsageQuery, days []store.UsageDay) Page {
	p := Page{From: q.from.Format("2006-01-02"), To: q.to.Format("2006-01-02"), Days: make([]Day, 0, len(days))}
	if !scope.Everyone {
		user := scope.User
		p.User = &user
	}
	if next := q.next(); next != "" {
		p.NextCursor = &next
	}
	for _, d := range days {
		out := Day{Date: d.Date, ByModel: make([]ModelUsage, 0, len(d.Lines))}
		var sum store.UsageLine
		for _, l := range d.Lines {
			sum.Add(l)
			out.ByModel = append(out.ByModel, ModelUsage{Backend: l.Backend, Model: l.Model, Counts: countsOf(l)})
		}
		out.Counts = countsOf(sum)
		p.Days = append(p.Days, out)
	}
	return p
}
