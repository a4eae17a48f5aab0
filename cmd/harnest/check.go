package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/harnest/harnest/config"
	"github.com/harnest/harnest/relay/recipes"
)

// check validates a folder and prints every problem with its field path.
func check(args []string) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	folder, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	f, err := config.Load(folder)
	// The outside agents' recipes (recipes/*.json): one line per problem,
	// naming the file and the field.
	recipeProblems := recipes.Check(folder)
	if err != nil {
		var problems *config.Problems
		if errors.As(err, &problems) {
			for _, p := range problems.Lines() {
				fmt.Println(p)
			}
		} else {
			fmt.Println(err)
		}
	}
	for _, p := range recipeProblems {
		fmt.Println(p)
	}
	if err != nil || len(recipeProblems) > 0 {
		return 1
	}
	fmt.Printf("%s: agent %q is valid\n", folder, f.Config.Metadata.Name)
	return 0
}
