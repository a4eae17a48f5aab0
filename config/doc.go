// Package config loads an agent folder: the directory that
// `harnest serve <agent-folder>` is given.
//
// A folder holds three required files:
//
//	config.yaml      what the agent is (spec), how it is served (server), auth, store
//	agent-card.yaml  the A2A agent card (1.0 shape), served as JSON
//	instructions.md  instructions for model backends
//
// Load reads all three, decodes the YAML strictly (exactly one document,
// string keys, no duplicate or unknown keys, the right type for every field),
// resolves exact ${NAME} environment references in config.yaml, validates
// every field and applies defaults:
//
//	folder, err := config.Load("./my-agent")
//	var problems *config.Problems
//	if errors.As(err, &problems) {
//		for _, line := range problems.Lines() {
//			fmt.Println(line)
//		}
//	}
//
// A failed load reports every problem it found, each naming the file and the
// field path, never the value of an environment variable or a secret.
package config
