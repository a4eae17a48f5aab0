// Command mcp-clock is a small MCP server on stdio, built with the official
// Go SDK: the assistant example's clock. Its tools tell the current time
// in a time zone and count the days between two dates.
package main

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// NowArgs are the arguments of now.
type NowArgs struct {
	TimeZone string `json:"timeZone,omitempty" jsonschema:"an IANA time zone such as Europe/Paris; default UTC"`
}

// NowResult is what now answers.
type NowResult struct {
	Time     string `json:"time"`     // RFC 3339
	Weekday  string `json:"weekday"`  // Monday, ...
	TimeZone string `json:"timeZone"` // as used
}

// DaysArgs are the arguments of days_between.
type DaysArgs struct {
	From string `json:"from" jsonschema:"a date as YYYY-MM-DD"`
	To   string `json:"to" jsonschema:"a date as YYYY-MM-DD"`
}

// DaysResult is what days_between answers.
type DaysResult struct {
	Days int `json:"days"` // negative when to is before from
}

func now(_ context.Context, _ *mcp.CallToolRequest, in NowArgs) (*mcp.CallToolResult, NowResult, error) {
	zone := in.TimeZone
	if zone == "" {
		zone = "UTC"
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return nil, NowResult{}, fmt.Errorf("unknown time zone %q; use an IANA name such as Europe/Paris", zone)
	}
	t := time.Now().In(loc)
	return nil, NowResult{Time: t.Format(time.RFC3339), Weekday: t.Weekday().String(), TimeZone: zone}, nil
}

func daysBetween(_ context.Context, _ *mcp.CallToolRequest, in DaysArgs) (*mcp.CallToolResult, DaysResult, error) {
	from, err := time.Parse(time.DateOnly, in.From)
	if err != nil {
		return nil, DaysResult{}, fmt.Errorf("from %q is not a date as YYYY-MM-DD", in.From)
	}
	to, err := time.Parse(time.DateOnly, in.To)
	if err != nil {
		return nil, DaysResult{}, fmt.Errorf("to %q is not a date as YYYY-MM-DD", in.To)
	}
	return nil, DaysResult{Days: int(to.Sub(from).Hours() / 24)}, nil
}

func main() {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcp-clock", Version: "v0.1.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "now", Description: "The current date and time in a time zone."}, now)
	mcp.AddTool(s, &mcp.Tool{Name: "days_between", Description: "The number of days from one date to another."}, daysBetween)
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Printf("mcp-clock: %v", err)
	}
}
