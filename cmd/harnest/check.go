package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/harnest/harnest/config"
)

// check validates a folder and prints every problem with its field path.
func check(args []string) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	folder, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	f, err := config.Load(folder)
	if err != nil {
		var problems *config.Problems
		if errors.As(err, &problems) {
			for _, p := range problems.Lines() {
				fmt.Println(p)
			}
		} else {
			fmt.Println(err)
		}
		return 1
	}
	fmt.Printf("%s: agent %q is valid\n", folder, f.Config.Metadata.Name)
	return 0
}
