// Command harnest serves one agent to every kind of client: the neutral
// HTTP API (JSON and SSE), its OpenAPI documents, and the transports that
// later grow around the same core.
//
//	harnest serve [folder] [--host H] [--port P] [--redis-url URL]
//	harnest check [folder]
//	harnest eval <folder> [cases] [--json F] [--junit F] [--threshold R]
//	harnest init <folder> [--template echo|model|worker-python|worker-node]
//	harnest version
//
// default.pgo in this directory is the CPU profile that go build optimises
// harnest with (profile-guided optimisation); bench/pgo.sh makes it from the
// benchmark's loads, through the profiling endpoint that a build with
// -tags pprof has (pprof.go).
package main

import (
	"fmt"
	"os"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {
	os.Exit(run(os.Args[1:]))
}

// commands are the subcommands, by name: each takes the arguments after
// its name and returns the exit code.
var commands = map[string]func(args []string) int{
	"serve":   serve,
	"check":   check,
	"eval":    evalCommand,
	"init":    initFolder,
	"pair":    pair,
	"connect": connect,
}

func run(args []string) int {
	if len(args) == 0 {
		usage()
		return 2
	}
	if command, ok := commands[args[0]]; ok {
		return command(args[1:])
	}
	switch args[0] {
	case "version", "--version", "-v":
		fmt.Println("harnest", version)
		return 0
	case "help", "-h", "--help":
		usage()
		return 0
	}
	fmt.Fprintf(os.Stderr, "harnest: unknown command %q\n\n", args[0])
	usage()
	return 2
}

func usage() {
	fmt.Fprint(os.Stderr, `Usage:
  harnest serve [folder] [flags]   serve the agent in folder (default ".")
  harnest check [folder]           validate an agent folder; prints each problem
  harnest eval <folder> [cases]    run the agent's eval cases (default <folder>/evals.yaml); exits 1 below
                                   --threshold ("harnest eval -h" for the flags)
  harnest init <folder> [--template echo|model|worker-python|worker-node] [--name N]
                                   write a working agent folder from a template
  harnest pair --server URL --name N --kind K
                                   create a pairing code for an outside agent (owner token in HARNEST_TOKEN)
  harnest connect --server URL --name N --kind K (--exec "cmd args" | --preset NAME | --a2a URL)
                                   answer this agent's turns with a local command, a known harness or a local
                                   A2A agent (pairing code in HARNEST_PAIRING_CODE; "harnest connect -h" for more)
  harnest version                  print the version

Run "harnest serve -h" for the serve flags.
`)
}
