package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// pair is "harnest pair --server URL --name N --kind K": it creates a
// single-use pairing code with the owner's token (HARNEST_TOKEN) and
// prints the code alone on standard output.
func pair(args []string) int {
	return runPair(context.Background(), args, os.Getenv, os.Stdout, os.Stderr)
}

func runPair(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("pair", flag.ContinueOnError)
	fs.SetOutput(stderr)
	server := fs.String("server", "", "harnest server URL, e.g. http://127.0.0.1:1907")
	name := fs.String("name", "", "participant name the outside agent will pair with")
	kind := fs.String("kind", "", "participant kind, e.g. cli")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "Usage: harnest pair --server URL --name N --kind K   (owner token from HARNEST_TOKEN)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *server == "" || *name == "" || *kind == "" || fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	body, _ := json.Marshal(map[string]string{"name": *name, "kind": *kind})
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "POST", strings.TrimRight(*server, "/")+"/owner/outside-agents/pairings", bytes.NewReader(body))
	if err != nil {
		fmt.Fprintln(stderr, "harnest pair:", err)
		return 2
	}
	req.Header.Set("Content-Type", "application/json")
	if tok := getenv("HARNEST_TOKEN"); tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Fprintln(stderr, "harnest pair: cannot reach the server:", err)
		return 1
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode != http.StatusCreated {
		fmt.Fprintf(stderr, "harnest pair: the server answered %d: %s\n", resp.StatusCode, detailOf(raw))
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusNotFound {
			fmt.Fprintln(stderr, "Set HARNEST_TOKEN to a token marked owner: true on that server.")
		}
		return 1
	}
	var v struct {
		Code string `json:"code"`
	}
	if json.Unmarshal(raw, &v) != nil || v.Code == "" {
		fmt.Fprintln(stderr, "harnest pair: the server's answer has no code")
		return 1
	}
	fmt.Fprintln(stdout, v.Code)
	return 0
}

// detailOf returns the sentence of a {"detail","code"} error body.
func detailOf(raw []byte) string {
	var e struct{ Detail, Code string }
	if json.Unmarshal(raw, &e) == nil && e.Detail != "" {
		return e.Detail + " (" + e.Code + ")"
	}
	s := strings.TrimSpace(string(raw))
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}
