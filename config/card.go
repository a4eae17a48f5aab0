package config

import (
	"fmt"
	"math"
	"net/url"
	"regexp"

	"gopkg.in/yaml.v3"
)

// maxCardNodes bounds the nodes visited while decoding agent-card.yaml,
// aliases included.
const maxCardNodes = 1_000_000

var protocolVersionPattern = regexp.MustCompile(`^\d+\.\d+$`)

// decodeCard turns agent-card.yaml into a JSON-ready value: maps with string
// keys, slices, strings, numbers, booleans and nil. It does not resolve
// environment references: the card is served as written.
func decodeCard(data []byte, probs *Problems) (map[string]any, bool) {
	card, ok := decodeCardFile(cardFile, data, probs)
	if !ok {
		return nil, false
	}
	before := probs.Len()
	validateCard(cardFile, card, probs)
	return card, probs.Len() == before
}

// decodeExtendedCard reads agent-card.extended.yaml, the extended agent card
// A2A serves to authenticated callers: its top-level fields replace those of
// the public card (more skills, other security schemes), and the result is
// checked like agent-card.yaml.
func decodeExtendedCard(data []byte, public map[string]any, probs *Problems) (map[string]any, bool) {
	overlay, ok := decodeCardFile(extendedCardFile, data, probs)
	if !ok {
		return nil, false
	}
	card := make(map[string]any, len(public)+len(overlay))
	for k, v := range public {
		card[k] = v
	}
	for k, v := range overlay {
		card[k] = v
	}
	before := probs.Len()
	validateCard(extendedCardFile, card, probs)
	return card, probs.Len() == before
}

// decodeCardFile decodes a card file into a mapping, without checking its
// fields.
func decodeCardFile(file string, data []byte, probs *Problems) (map[string]any, bool) {
	root, ok := parseDocument(file, data, probs)
	if !ok {
		return nil, false
	}
	d := &cardDecoder{file: file, probs: probs, active: map[*yaml.Node]bool{}}
	before := probs.Len()
	value := d.value(root, "")
	if probs.Len() > before {
		return nil, false
	}
	card, isMap := value.(map[string]any)
	if !isMap {
		probs.add(file, "", fmt.Sprintf("expected a mapping with name, description, version and the other agent card fields, got %s", describeNode(root, false)))
		return nil, false
	}
	return card, true
}

type cardDecoder struct {
	file   string // the card file, for problems
	probs  *Problems
	nodes  int
	active map[*yaml.Node]bool // anchors being expanded, to stop recursive aliases
}

func (d *cardDecoder) problem(path, format string, args ...any) {
	d.probs.add(d.file, path, fmt.Sprintf(format, args...))
}

func (d *cardDecoder) value(n *yaml.Node, path string) any {
	d.nodes++
	if d.nodes == maxCardNodes+1 {
		d.problem(path, "document is too large after expanding aliases (more than %d nodes)", maxCardNodes)
	}
	if d.nodes > maxCardNodes {
		return nil
	}
	switch n.Kind {
	case yaml.AliasNode:
		target := n.Alias
		if d.active[target] {
			d.problem(path, "alias refers to a node that contains it")
			return nil
		}
		d.active[target] = true
		defer delete(d.active, target)
		return d.value(target, path)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for e := range mappingEntries(n, path, d.problem) {
			m[e.key] = d.value(e.value, e.path)
		}
		return m
	case yaml.SequenceNode:
		s := make([]any, len(n.Content))
		for i, item := range n.Content {
			s[i] = d.value(item, indexPath(path, i))
		}
		return s
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!timestamp", "!!binary":
			return n.Value // served as written, not as a Go time or bytes
		}
		var v any
		if err := n.Decode(&v); err != nil {
			d.problem(path, "cannot read value: %s", yamlErrorText(err))
			return nil
		}
		if f, isFloat := v.(float64); isFloat && (math.IsNaN(f) || math.IsInf(f, 0)) {
			d.problem(path, "must be a finite number; JSON cannot carry %s", n.Value)
			return nil
		}
		return v
	default:
		d.problem(path, "unsupported YAML node")
		return nil
	}
}

// cardChecker validates the decoded card against the A2A 1.0 subset harnest
// serves.
type cardChecker struct {
	file  string // the card file, for problems
	probs *Problems
}

func (c cardChecker) problem(path, format string, args ...any) {
	c.probs.add(c.file, path, fmt.Sprintf(format, args...))
}

func validateCard(file string, card map[string]any, probs *Problems) {
	c := cardChecker{file: file, probs: probs}
	c.requiredString(card, "", "name")
	c.requiredString(card, "", "description")
	c.requiredString(card, "", "version")

	if ifaces, ok := c.list(card, "", "supportedInterfaces", true); ok {
		if len(ifaces) == 0 {
			c.problem("supportedInterfaces", `needs at least one interface, such as {url: "http://127.0.0.1:1907", protocolBinding: "HTTP+JSON", protocolVersion: "1.0"}`)
		}
		for i, item := range ifaces {
			path := indexPath("supportedInterfaces", i)
			iface, ok := c.object(item, path)
			if !ok {
				continue
			}
			if s, ok := c.requiredString(iface, path, "url"); ok && !absoluteURL(s) {
				c.problem(path+".url", "must be an absolute URL such as \"http://127.0.0.1:1907\", got %q", shorten(s))
			}
			c.requiredString(iface, path, "protocolBinding")
			c.protocolVersion(iface, path)
		}
	}

	if caps, present := card["capabilities"]; !present {
		c.problem("capabilities", "required; write `capabilities: {}` or list streaming, pushNotifications, extendedAgentCard")
	} else if m, ok := c.object(caps, "capabilities"); ok {
		for _, key := range []string{"streaming", "pushNotifications", "extendedAgentCard"} {
			if v, present := m[key]; present {
				if _, isBool := v.(bool); !isBool {
					c.problem(joinPath("capabilities", key), "expected true or false, got %s", describeValue(v))
				}
			}
		}
		c.list(m, "capabilities", "extensions", false)
	}

	c.stringList(card, "", "defaultInputModes", true)
	c.stringList(card, "", "defaultOutputModes", true)

	if skills, ok := c.list(card, "", "skills", true); ok {
		firstUse := map[string]int{}
		for i, item := range skills {
			path := indexPath("skills", i)
			skill, ok := c.object(item, path)
			if !ok {
				continue
			}
			if id, ok := c.requiredString(skill, path, "id"); ok {
				if j, dup := firstUse[id]; dup {
					c.problem(path+".id", "duplicate skill id %q, already used by skills[%d]; skill ids must be unique", shorten(id), j)
				} else {
					firstUse[id] = i
				}
			}
			c.requiredString(skill, path, "name")
			c.requiredString(skill, path, "description")
			c.stringList(skill, path, "tags", true)
			c.stringList(skill, path, "examples", false)
			c.stringList(skill, path, "inputModes", false)
			c.stringList(skill, path, "outputModes", false)
		}
	}
}

// requiredString checks that m[key] is a non-empty string.
func (c cardChecker) requiredString(m map[string]any, parent, key string) (string, bool) {
	path := joinPath(parent, key)
	v, present := m[key]
	if !present || v == nil {
		c.problem(path, "required; it must be a non-empty string")
		return "", false
	}
	s, isString := v.(string)
	if !isString {
		c.problem(path, "expected a string, got %s", describeValue(v))
		return "", false
	}
	if s == "" {
		c.problem(path, "must not be empty")
		return "", false
	}
	return s, true
}

func (c cardChecker) protocolVersion(iface map[string]any, parent string) {
	path := joinPath(parent, "protocolVersion")
	v, present := iface["protocolVersion"]
	switch s, isString := v.(string); {
	case !present || v == nil:
		c.problem(path, `required; write it as a quoted string such as "1.0"`)
	case !isString:
		c.problem(path, `expected a string such as "1.0", got %s; quote the version so YAML keeps it as text`, describeValue(v))
	case !protocolVersionPattern.MatchString(s):
		c.problem(path, `must look like "1.0" (major.minor), got %q`, shorten(s))
	}
}

// list returns m[key] as a list. A missing key is a problem when required.
func (c cardChecker) list(m map[string]any, parent, key string, required bool) ([]any, bool) {
	path := joinPath(parent, key)
	v, present := m[key]
	if !present || v == nil {
		if required {
			c.problem(path, "required; it must be a list")
		}
		return nil, false
	}
	l, isList := v.([]any)
	if !isList {
		c.problem(path, "expected a list, got %s", describeValue(v))
		return nil, false
	}
	return l, true
}

// stringList checks that m[key] is a list of non-empty strings; a required
// list must also have at least one item.
func (c cardChecker) stringList(m map[string]any, parent, key string, required bool) {
	l, ok := c.list(m, parent, key, required)
	if !ok {
		return
	}
	path := joinPath(parent, key)
	if required && len(l) == 0 {
		c.problem(path, "needs at least one item")
	}
	for i, item := range l {
		if s, isString := item.(string); !isString || s == "" {
			c.problem(indexPath(path, i), "expected a non-empty string, got %s", describeValue(item))
		}
	}
}

func (c cardChecker) object(v any, path string) (map[string]any, bool) {
	m, isMap := v.(map[string]any)
	if !isMap {
		c.problem(path, "expected a mapping, got %s", describeValue(v))
		return nil, false
	}
	return m, true
}

func absoluteURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && u.Scheme != "" && u.Host != ""
}

// describeValue names a decoded card value for messages.
func describeValue(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	case string:
		return fmt.Sprintf("%q", shorten(v))
	default:
		return shorten(fmt.Sprint(v))
	}
}
