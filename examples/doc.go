// Package examples holds the example agent folders, embedded so that
// "harnest init" can write them: Folders has hello (echo), chat (a model
// agent), worker-python and worker-node at its root.
package examples

import "embed"

// Folders are the example folders that "harnest init" writes as templates.
//
//go:embed hello chat worker-python worker-node
var Folders embed.FS
