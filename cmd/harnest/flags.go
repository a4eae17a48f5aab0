package main

import (
	"flag"
	"fmt"
)

// parseInterspersed parses flags that may come before or after the single
// optional positional argument (the agent folder), so both
// "serve --port 1 dir" and "serve dir --port 1" work.
func parseInterspersed(fs *flag.FlagSet, args []string) (folder string, err error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return "", err
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch len(positional) {
	case 0:
		return ".", nil
	case 1:
		return positional[0], nil
	}
	return "", fmt.Errorf("expected at most one agent folder, got %d: %q", len(positional), positional)
}
