package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
)

// What the A2A bridge reads: the agent card's word on the endpoint's
// version, and the text of a SendMessage result. The JSON of both spec
// versions is read with one set of types: a 1.0 result wraps the object
// ({"message": …} or {"task": …}), a 0.3 result is the object itself with
// its "kind"; parts carry "text" in both.

type bridgePart struct {
	Text string `json:"text"`
}

type bridgeMessage struct {
	Parts []bridgePart `json:"parts"`
}

type bridgeTask struct {
	Status struct {
		State   string         `json:"state"`
		Message *bridgeMessage `json:"message"`
	} `json:"status"`
	Artifacts []struct {
		Parts []bridgePart `json:"parts"`
	} `json:"artifacts"`
}

// bridgePartsText joins the text parts, one a line.
func bridgePartsText(parts []bridgePart) string {
	var texts []string
	for _, p := range parts {
		if p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// resultText is the answer in a SendMessage (1.0) or message/send (0.3)
// result: the text of a Message, or of a completed Task (its artifacts'
// text parts, else its status message). Any other task state is no
// answer, said plainly.
func resultText(raw json.RawMessage) (string, error) {
	var v struct {
		Task    *bridgeTask    `json:"task"`    // 1.0
		Message *bridgeMessage `json:"message"` // 1.0
		Kind    string         `json:"kind"`    // 0.3: "task" or "message"
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", errors.New("the A2A agent's result is neither a Message nor a Task")
	}
	switch {
	case v.Message != nil:
		return messageText(v.Message)
	case v.Task != nil:
		return taskText(v.Task)
	case v.Kind == "message":
		var m bridgeMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			return "", errors.New("the A2A agent's Message is unreadable")
		}
		return messageText(&m)
	case v.Kind == "task":
		var t bridgeTask
		if err := json.Unmarshal(raw, &t); err != nil {
			return "", errors.New("the A2A agent's Task is unreadable")
		}
		return taskText(&t)
	}
	return "", errors.New("the A2A agent's result is neither a Message nor a Task")
}

func messageText(m *bridgeMessage) (string, error) {
	if s := bridgePartsText(m.Parts); strings.TrimSpace(s) != "" {
		return s, nil
	}
	return "", errors.New("the A2A agent answered with a Message without text")
}

func taskText(t *bridgeTask) (string, error) {
	state := taskState(t.Status.State)
	switch state {
	case "completed":
	case "submitted", "working":
		return "", fmt.Errorf("the A2A agent's task is still %s after SendMessage: the bridge takes synchronous answers only, so this question has no answer", state)
	case "input-required", "auth-required":
		return "", fmt.Errorf("the A2A agent's task stopped in %s, waiting for something the bridge cannot give: this question has no answer", state)
	default:
		return "", fmt.Errorf("the A2A agent's task ended %s: this question has no answer", state)
	}
	var texts []string
	for _, a := range t.Artifacts {
		if s := bridgePartsText(a.Parts); s != "" {
			texts = append(texts, s)
		}
	}
	if s := strings.Join(texts, "\n"); strings.TrimSpace(s) != "" {
		return s, nil
	}
	if t.Status.Message != nil {
		if s := bridgePartsText(t.Status.Message.Parts); strings.TrimSpace(s) != "" {
			return s, nil
		}
	}
	return "", errors.New("the A2A agent's task completed without any text")
}

// taskState is a state of either version as 0.3 spells it:
// "TASK_STATE_INPUT_REQUIRED" and "input-required" are "input-required".
func taskState(s string) string {
	s = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(s), "TASK_STATE_"))
	s = strings.ReplaceAll(s, "_", "-")
	if s == "" {
		return "unspecified"
	}
	return s
}

// cardVersionFor reads a card (1.0's supportedInterfaces, 0.3's url,
// preferredTransport and additionalInterfaces) and returns the version of
// its JSON-RPC interface at endpoint: "1.0" when one is 1.0, else "0.3"
// when one is 0.3, else "".
func cardVersionFor(raw []byte, endpoint *url.URL) string {
	var card struct {
		SupportedInterfaces []struct {
			URL             string `json:"url"`
			ProtocolBinding string `json:"protocolBinding"`
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"supportedInterfaces"`
		URL                  string `json:"url"`
		ProtocolVersion      string `json:"protocolVersion"`
		PreferredTransport   string `json:"preferredTransport"`
		AdditionalInterfaces []struct {
			URL       string `json:"url"`
			Transport string `json:"transport"`
		} `json:"additionalInterfaces"`
	}
	if json.Unmarshal(raw, &card) != nil {
		return ""
	}
	found := ""
	for _, in := range card.SupportedInterfaces {
		if !strings.EqualFold(in.ProtocolBinding, "JSONRPC") || !sameEndpoint(in.URL, endpoint) {
			continue
		}
		switch {
		case strings.HasPrefix(in.ProtocolVersion, "1."):
			return a2aV10
		case strings.HasPrefix(in.ProtocolVersion, "0.3"):
			found = a2aV03
		}
	}
	if found != "" || !strings.HasPrefix(card.ProtocolVersion, "0.3") {
		return found
	}
	if sameEndpoint(card.URL, endpoint) && (card.PreferredTransport == "" || strings.EqualFold(card.PreferredTransport, "JSONRPC")) {
		return a2aV03
	}
	for _, in := range card.AdditionalInterfaces {
		if strings.EqualFold(in.Transport, "JSONRPC") && sameEndpoint(in.URL, endpoint) {
			return a2aV03
		}
	}
	return ""
}

// sameEndpoint compares a card's URL with the endpoint: scheme and host
// without case, the path without a trailing slash.
func sameEndpoint(raw string, endpoint *url.URL) bool {
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	return strings.EqualFold(u.Scheme, endpoint.Scheme) && strings.EqualFold(u.Host, endpoint.Host) &&
		strings.TrimRight(u.Path, "/") == strings.TrimRight(endpoint.Path, "/")
}
