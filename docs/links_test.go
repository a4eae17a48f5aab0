package docs

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

var (
	mdLink  = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	heading = regexp.MustCompile(`^#{1,6}\s+(.*)$`)
)

// anchors returns the GitHub anchors of a Markdown file's headings.
func anchors(text string) map[string]bool {
	out := map[string]bool{}
	inFence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		m := heading.FindStringSubmatch(line)
		if inFence || m == nil {
			continue
		}
		out[slug(m[1])] = true
	}
	return out
}

// slug is GitHub's anchor of a heading: lower case, spaces to hyphens,
// punctuation other than hyphens and underscores dropped.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestLinksResolve checks every relative link of README.md, docs/*.md and
// bench/README.md: the file it names exists, and an anchor names a heading
// of that file.
func TestLinksResolve(t *testing.T) {
	files := append(docFiles(t), filepath.Join("bench", "README.md"))
	checked := 0
	for _, file := range files {
		b, err := os.ReadFile(filepath.Join("..", file))
		if err != nil {
			t.Fatal(err)
		}
		inFence := false
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "```") {
				inFence = !inFence
			}
			if inFence {
				continue
			}
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				where := file + ":" + itoa(i+1)
				path, anchor, _ := strings.Cut(target, "#")
				full := filepath.Join("..", file)
				if path != "" {
					full = filepath.Join("..", filepath.Dir(file), path)
				}
				if _, err := os.Stat(full); err != nil {
					t.Errorf("%s: link %s: %s does not exist", where, target, full)
					continue
				}
				checked++
				if anchor == "" {
					continue
				}
				if !strings.HasSuffix(full, ".md") {
					t.Errorf("%s: link %s has an anchor into a file that is not Markdown", where, target)
					continue
				}
				tb, err := os.ReadFile(full)
				if err != nil {
					t.Fatal(err)
				}
				if !anchors(string(tb))[anchor] {
					t.Errorf("%s: link %s: %s has no heading #%s", where, target, full, anchor)
				}
			}
		}
	}
	if checked < 10 {
		t.Fatalf("checked only %d links; the link reader is broken", checked)
	}
}

// TestArchitectureFoldersExist checks that every folder the table of
// docs/architecture.md names exists, so a moved package moves its row too.
func TestArchitectureFoldersExist(t *testing.T) {
	b, err := os.ReadFile("architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(b), "\n| Folder | What it owns |\n")
	if !ok {
		t.Fatal("architecture.md has no table headed | Folder | What it owns |")
	}
	code := regexp.MustCompile("`([^`]+)`")
	rows := 0
	for _, line := range strings.Split(table, "\n") {
		if !strings.HasPrefix(line, "| ") {
			break
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(line, "| "), " | ")
		if strings.HasPrefix(first, "---") {
			continue
		}
		rows++
		for _, m := range code.FindAllStringSubmatch(first, -1) {
			if fi, err := os.Stat(filepath.Join("..", m[1])); err != nil || !fi.IsDir() {
				t.Errorf("architecture.md names the folder %s, which does not exist", m[1])
			}
		}
	}
	if rows < 20 {
		t.Fatalf("read %d rows of the folder table; the reader is broken", rows)
	}
}
