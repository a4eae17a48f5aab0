package program

import (
	"os"
	"sort"
)

// Fallbacks for the minimal environment when the server has none.
const (
	defaultPath = "/usr/local/bin:/usr/bin:/bin"
	defaultLang = "C.UTF-8"
)

// MinimalEnv is the environment a program starts with: PATH, LANG and HOME
// from the server (PATH and LANG with a fallback when the server has none;
// HOME only when it is set), then the extra variables in name order. The
// server's other variables are not passed on: they may hold secrets.
func MinimalEnv(extra map[string]string) []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = defaultPath
	}
	lang := os.Getenv("LANG")
	if lang == "" {
		lang = defaultLang
	}
	env := []string{"PATH=" + path, "LANG=" + lang}
	if home := os.Getenv("HOME"); home != "" {
		env = append(env, "HOME="+home)
	}

	names := make([]string, 0, len(extra))
	for name := range extra {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		env = append(env, name+"="+extra[name])
	}
	return env
}
