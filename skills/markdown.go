package skills

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// frontMatter is the YAML header of a SKILL.md.
type frontMatter struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
}

// agent is what every SKILL.md of this server says about the agent.
type agent struct {
	Name        string // the card's name
	Description string // the card's description
	ToolName    string // the /mcp tool (metadata.name); "" when unknown
	MCP         bool   // /mcp is served
	BaseURL     string // PublicBaseURL without a trailing slash; "" for relative paths
}

// url is path on the server: absolute when the base URL is known.
func (a agent) url(path string) string { return a.BaseURL + path }

// skillFile renders one SKILL.md: the front matter, then instructions that
// tell an assistant how to reach the agent.
func skillFile(s skill, name, description string, a agent) ([]byte, error) {
	header, err := yaml.Marshal(frontMatter{Name: name, Description: description})
	if err != nil {
		return nil, fmt.Errorf("skills: encode the front matter of %q: %w", s.ID, err)
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	b.Write(header)
	b.WriteString("---\n\n")
	fmt.Fprintf(&b, "# %s\n\n", s.Title)
	if s.Description != "" {
		fmt.Fprintf(&b, "%s\n\n", s.Description)
	}
	fmt.Fprintf(&b, "This skill belongs to a remote agent, **%s**.", a.Name)
	if a.Description != "" {
		fmt.Fprintf(&b, " %s", a.Description)
	}
	b.WriteString("\n\nDo not do the work yourself: send the user's request to the agent, then give the user its answer.\n\n")
	writeWhen(&b, s)
	writeReach(&b, s, a)
	return b.Bytes(), nil
}

// writeWhen writes when to use the skill: its tags and examples.
func writeWhen(b *bytes.Buffer, s skill) {
	if len(s.Tags) == 0 && len(s.Examples) == 0 {
		return
	}
	b.WriteString("## When to use it\n\n")
	if len(s.Tags) > 0 {
		fmt.Fprintf(b, "Requests about: %s.\n\n", strings.Join(s.Tags, ", "))
	}
	if len(s.Examples) > 0 {
		b.WriteString("For example:\n\n")
		for _, e := range s.Examples {
			fmt.Fprintf(b, "- %s\n", strings.ReplaceAll(e, "\n", " "))
		}
		b.WriteString("\n")
	}
}

// writeReach writes how to reach the agent: MCP (when served), A2A and the
// neutral HTTP API.
func writeReach(b *bytes.Buffer, s skill, a agent) {
	b.WriteString("## How to reach the agent\n\n")
	if a.BaseURL != "" {
		fmt.Fprintf(b, "The agent is served at %s.", a.BaseURL)
	} else {
		b.WriteString("The paths below are on the server this file was downloaded from.")
	}
	b.WriteString(" If the server asks for a token (401), send `Authorization: Bearer <token>` with every request.\n\n")
	if a.MCP {
		tool := "the one tool that `tools/list` shows"
		if a.ToolName != "" {
			tool = "the tool `" + a.ToolName + "`"
		}
		fmt.Fprintf(b, "### MCP\n\nConnect an MCP client (Streamable HTTP) to `%s` and call %s with "+
			"`{\"message\": \"<the request>\"}`; add `\"sessionId\"` from an earlier result to continue that conversation. "+
			"The result's text is the answer. A `status` of `requires_action` means the agent waits for a person's approval "+
			"or a client tool: the result says what, and how to answer it.\n\n", a.url("/mcp"), tool)
	}
	fmt.Fprintf(b, "### A2A\n\nRead the agent card at `%s`; it lists the interfaces where an A2A client "+
		"sends the request as a message.\n\n", a.url("/.well-known/agent-card.json"))
	example := "<the request>"
	if len(s.Examples) > 0 {
		example = s.Examples[0]
	}
	request := fmt.Sprintf("POST %s\nContent-Type: application/json\n\n%s", a.url("/responses"), jsonBody(example))
	f := fence(request)
	fmt.Fprintf(b, "### HTTP\n\n%shttp\n%s\n%s\n\n", f, request, f)
	fmt.Fprintf(b, "The answer is `outputText`; send `sessionId` back with the next request to continue the conversation. "+
		"A `status` of `requires_action` carries `requiredAction`: once the user has decided, answer a `human_approval` with "+
		"`POST %s` and `{\"decision\": \"approve\"}` or `{\"decision\": \"deny\"}`, and a `client_tool` with "+
		"`POST %s` and `{\"output\": <the tool's output>}`; that call returns the rest of the answer.\n",
		a.url("/approvals/{id}"), a.url("/client-tools/{id}"))
}

// jsonBody is the POST /responses body for input, as readable JSON.
func jsonBody(input string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]string{"input": input})
	return strings.TrimSpace(b.String())
}

// fence is a code fence longer than any run of backticks in body, so that
// the body cannot end the block.
func fence(body string) string {
	longest, run := 0, 0
	for _, r := range body {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}
