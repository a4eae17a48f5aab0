package program

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestMinimalEnvKeepsOnlyPathLangHomeThenExtraInNameOrder(t *testing.T) {
	t.Setenv("PATH", "/opt/bin:/usr/bin")
	t.Setenv("LANG", "en_US.UTF-8")
	t.Setenv("HOME", "/home/someone")
	t.Setenv("HARNEST_TEST_SECRET", "do-not-pass")

	got := MinimalEnv(map[string]string{"ZED": "z", "ALPHA": "a"})
	want := []string{
		"PATH=/opt/bin:/usr/bin",
		"LANG=en_US.UTF-8",
		"HOME=/home/someone",
		"ALPHA=a",
		"ZED=z",
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("MinimalEnv = %q, want %q", got, want)
	}
}

func TestMinimalEnvFallsBackWhenTheServerHasNone(t *testing.T) {
	t.Setenv("PATH", "")
	t.Setenv("LANG", "")
	t.Setenv("HOME", "")

	got := MinimalEnv(nil)
	want := []string{"PATH=" + defaultPath, "LANG=" + defaultLang}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("MinimalEnv = %q, want %q", got, want)
	}
}

func TestResolve(t *testing.T) {
	folder := t.TempDir()
	script := filepath.Join(folder, "bin", "tool.sh")
	if err := os.MkdirAll(filepath.Dir(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}

	t.Run("relative to the folder", func(t *testing.T) {
		got, err := Resolve("bin/tool.sh", folder)
		if err != nil || got != script {
			t.Fatalf("Resolve = %q, %v; want %q", got, err, script)
		}
	})
	t.Run("absolute", func(t *testing.T) {
		got, err := Resolve(script, "/nowhere")
		if err != nil || got != script {
			t.Fatalf("Resolve = %q, %v; want %q", got, err, script)
		}
	})
	t.Run("in PATH", func(t *testing.T) {
		got, err := Resolve("sh", folder)
		if err != nil || !filepath.IsAbs(got) {
			t.Fatalf("Resolve(sh) = %q, %v; want an absolute path", got, err)
		}
	})
	t.Run("missing in PATH", func(t *testing.T) {
		_, err := Resolve("harnest-no-such-program", folder)
		if err == nil || !strings.Contains(err.Error(), `"harnest-no-such-program" not found in PATH`) {
			t.Fatalf("Resolve = %v; want a not-found-in-PATH error", err)
		}
	})
	t.Run("missing file", func(t *testing.T) {
		if _, err := Resolve("bin/missing.sh", folder); err == nil {
			t.Fatal("Resolve of a missing file succeeded")
		}
	})
	t.Run("a directory", func(t *testing.T) {
		_, err := Resolve("./bin", folder)
		if err == nil || !strings.Contains(err.Error(), "is a directory") {
			t.Fatalf("Resolve = %v; want an is-a-directory error", err)
		}
	})
	t.Run("empty", func(t *testing.T) {
		if _, err := Resolve("", folder); err == nil {
			t.Fatal("Resolve of an empty name succeeded")
		}
	})
}
