package config

import "strings"

// Problem is one thing wrong with an agent folder.
type Problem struct {
	File    string // file name inside the folder, such as "config.yaml"; empty for the folder itself
	Path    string // field path such as "server.http.port" or "skills[0].id"; empty for the whole file
	Message string // what is wrong and what to do about it
}

// String formats the problem as "file: path: message", leaving out empty parts.
func (p Problem) String() string {
	parts := make([]string, 0, 3)
	if p.File != "" {
		parts = append(parts, p.File)
	}
	if p.Path != "" {
		parts = append(parts, p.Path)
	}
	parts = append(parts, p.Message)
	return strings.Join(parts, ": ")
}

// Problems is the error Load returns. It lists every problem found in the
// folder, in the order they were found.
type Problems struct {
	items []Problem
}

// Items returns the problems.
func (p *Problems) Items() []Problem {
	return append([]Problem(nil), p.items...)
}

// Lines returns one formatted line per problem, for printing one per line.
func (p *Problems) Lines() []string {
	lines := make([]string, len(p.items))
	for i, item := range p.items {
		lines[i] = item.String()
	}
	return lines
}

// Len is the number of problems.
func (p *Problems) Len() int { return len(p.items) }

// Error joins the problems, one per line.
func (p *Problems) Error() string {
	return strings.Join(p.Lines(), "\n")
}

func (p *Problems) add(file, path, message string) {
	p.items = append(p.items, Problem{File: file, Path: path, Message: message})
}
