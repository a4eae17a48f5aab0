package config

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"unicode/utf8"
)

// The files of an agent folder and their size limits.
const (
	configFile       = "config.yaml"
	cardFile         = "agent-card.yaml"
	extendedCardFile = "agent-card.extended.yaml" // optional
	instructionsFile = "instructions.md"

	maxConfigBytes       = 64 << 10
	maxCardBytes         = 4 << 20
	maxInstructionsBytes = 4 << 20
)

// Load reads the agent folder dir, resolving ${NAME} references in
// config.yaml from the process environment. On failure the error is a
// *Problems listing everything that is wrong.
func Load(dir string) (*Folder, error) {
	return LoadWithEnv(dir, os.LookupEnv)
}

// LoadWithEnv is Load with the environment given as a lookup function, such
// as os.LookupEnv or a map in tests. A nil lookup means os.LookupEnv.
func LoadWithEnv(dir string, lookup func(string) (string, bool)) (*Folder, error) {
	if lookup == nil {
		lookup = os.LookupEnv
	}
	probs := &Problems{}
	abs, err := filepath.Abs(dir)
	if err != nil {
		probs.add("", "", fmt.Sprintf("agent folder %q: cannot resolve its path: %v", dir, err))
		return nil, probs
	}
	info, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		probs.add("", "", fmt.Sprintf("agent folder %q does not exist", dir))
		return nil, probs
	case err != nil:
		probs.add("", "", fmt.Sprintf("agent folder %q: %v", dir, err))
		return nil, probs
	case !info.IsDir():
		probs.add("", "", fmt.Sprintf("agent folder %q is not a directory", dir))
		return nil, probs
	}

	folder := &Folder{Dir: abs}
	if data, ok := readFolderFile(abs, configFile, maxConfigBytes, probs); ok {
		if cfg, ok := decodeConfig(data, lookup, probs); ok {
			folder.Config = *cfg
		}
	}
	if data, ok := readFolderFile(abs, cardFile, maxCardBytes, probs); ok {
		if card, ok := decodeCard(data, probs); ok {
			folder.Card = card
		}
	}
	if folder.Card != nil && folderHasFile(abs, extendedCardFile) {
		if data, ok := readFolderFile(abs, extendedCardFile, maxCardBytes, probs); ok {
			folder.ExtendedCard, _ = decodeExtendedCard(data, folder.Card, probs)
		}
	}
	if probs.Len() == 0 {
		loadContract(abs, &folder.Config.Spec, probs)
	}
	instructions := instructionsFile
	if name := folder.Config.Spec.Instructions; name != "" {
		instructions = filepath.Clean(name)
	}
	if data, ok := readFolderFile(abs, instructions, maxInstructionsBytes, probs); ok {
		if text, ok := checkInstructions(instructions, data, probs); ok {
			folder.Instructions = text
		}
	}
	if probs.Len() > 0 {
		return nil, probs
	}
	return folder, nil
}

// decodeConfig decodes, resolves, validates and completes config.yaml.
func decodeConfig(data []byte, lookup func(string) (string, bool), probs *Problems) (*Config, bool) {
	root, ok := parseDocument(configFile, data, probs)
	if !ok {
		return nil, false
	}
	before := probs.Len()
	var cfg Config
	d := newDecoder(configFile, lookup, probs)
	d.decode(root, "", reflect.ValueOf(&cfg).Elem())
	if !d.set[""] && !d.bad[""] {
		d.problem("", "expected a mapping with apiVersion, kind, metadata and spec, got %s", describeNode(root, false))
	}
	if !d.bad[""] {
		validateConfig(&cfg, d)
	}
	if probs.Len() > before {
		return nil, false
	}
	cfg.ApplyDefaults()
	return &cfg, true
}

// readFolderFile reads one required file of the folder. It must be a regular
// file (not a symlink) of at most limit bytes.
func readFolderFile(dir, name string, limit int64, probs *Problems) ([]byte, bool) {
	path := filepath.Join(dir, name)
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		probs.add(name, "", "file is missing; an agent folder needs config.yaml, agent-card.yaml and instructions.md")
		return nil, false
	case err != nil:
		probs.add(name, "", fmt.Sprintf("cannot read file: %v", err))
		return nil, false
	case info.Mode()&fs.ModeSymlink != 0:
		probs.add(name, "", "is a symbolic link; symlinks are rejected, put the file itself in the folder")
		return nil, false
	case !info.Mode().IsRegular():
		probs.add(name, "", "is not a regular file")
		return nil, false
	case info.Size() > limit:
		probs.add(name, "", fmt.Sprintf("file is larger than %s", ByteSize(limit)))
		return nil, false
	}
	f, err := os.Open(path)
	if err != nil {
		probs.add(name, "", fmt.Sprintf("cannot read file: %v", err))
		return nil, false
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		probs.add(name, "", fmt.Sprintf("cannot read file: %v", err))
		return nil, false
	}
	if int64(len(data)) > limit {
		probs.add(name, "", fmt.Sprintf("file is larger than %s", ByteSize(limit)))
		return nil, false
	}
	return data, true
}

// folderHasFile reports whether an optional file of the folder exists (as
// anything: readFolderFile then says what is wrong with it).
func folderHasFile(dir, name string) bool {
	_, err := os.Lstat(filepath.Join(dir, name))
	return !errors.Is(err, fs.ErrNotExist)
}

// localFileName reports a path inside the folder: relative, without "..".
func localFileName(name string) bool { return filepath.IsLocal(name) }

func checkInstructions(name string, data []byte, probs *Problems) (string, bool) {
	if !utf8.Valid(data) {
		probs.add(name, "", "is not valid UTF-8 text; save it as UTF-8")
		return "", false
	}
	text := string(data)
	if strings.TrimSpace(text) == "" {
		probs.add(name, "", "is empty; write the agent's instructions in it")
		return "", false
	}
	return text, true
}
