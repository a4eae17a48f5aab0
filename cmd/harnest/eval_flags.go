package main

import (
	"flag"
	"fmt"
	"time"
)

// parsePositionals parses flags that may come before, between or after up
// to max positional arguments.
func parsePositionals(fs *flag.FlagSet, args []string, max int) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(positional) > max {
		return nil, fmt.Errorf("expected at most %d arguments, got %d: %q", max, len(positional), positional)
	}
	return positional, nil
}

// flagDuration is a positive duration flag.
type flagDuration time.Duration

func (f *flagDuration) String() string { return time.Duration(*f).String() }

func (f *flagDuration) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return fmt.Errorf("must be a positive duration such as 90s or 5m")
	}
	*f = flagDuration(d)
	return nil
}

func (f flagDuration) d() time.Duration { return time.Duration(f) }
