package a2a

import (
	"slices"

	"github.com/harnest/harnest/runtime"
)

// Rich answers: a backend's artifacts (response.artifact) become A2A
// artifact updates with their append and lastChunk flags, and the
// agent_activity outcomes of the runtime (runtime.ActivityTask,
// ActivityRejected, ActivityAuthRequired) decide between a direct message
// and a task, and end a task as rejected or auth-required with the
// answer's text as its status message.

// applyArtifact folds one artifact chunk into the task and returns its
// update: a chunk with Append adds its parts to the artifact of that ID,
// any other makes (or replaces) it.
func (m *mapper) applyArtifact(a *runtime.ArtifactInfo) StreamEvent {
	chunk := Artifact{ArtifactID: a.ID, Name: a.Name, Description: a.Description, Parts: partsOf(a.Parts), Metadata: a.Metadata}
	existing := m.artifactByID(a.ID)
	switch {
	case existing == nil:
		m.task.Artifacts = append(m.task.Artifacts, cloneArtifact(chunk))
	case a.Append:
		existing.Parts = joinParts(existing.Parts, chunk.Parts)
		if a.Name != "" {
			existing.Name = a.Name
		}
		if a.Description != "" {
			existing.Description = a.Description
		}
		if a.Metadata != nil {
			existing.Metadata = a.Metadata
		}
	default:
		*existing = cloneArtifact(chunk)
	}
	return StreamEvent{ArtifactUpdate: &ArtifactUpdate{TaskID: m.task.ID, ContextID: m.task.ContextID,
		Artifact: chunk, Append: a.Append && existing != nil, LastChunk: a.LastChunk}}
}

// artifactByID is the task's artifact of that ID, or nil.
func (m *mapper) artifactByID(id string) *Artifact {
	for i := range m.task.Artifacts {
		if m.task.Artifacts[i].ArtifactID == id {
			return &m.task.Artifacts[i]
		}
	}
	return nil
}

// dropArtifact removes an artifact from the snapshot.
func (m *mapper) dropArtifact(id string) {
	m.task.Artifacts = slices.DeleteFunc(m.task.Artifacts, func(a Artifact) bool { return a.ArtifactID == id })
}

// cloneArtifact copies a's parts, so that the snapshot never shares a
// slice with an update a caller encodes.
func cloneArtifact(a Artifact) Artifact {
	a.Parts = append([]Part(nil), a.Parts...)
	return a
}

// joinParts appends more to parts, joining a text part to a text part
// before it (the snapshot holds the text the chunks make).
func joinParts(parts, more []Part) []Part {
	for _, p := range more {
		if n := len(parts); n > 0 && p.Text != nil && parts[n-1].Text != nil {
			s := *parts[n-1].Text + *p.Text
			parts[n-1].Text = &s
			continue
		}
		parts = append(parts, p)
	}
	return parts
}

// partsOf is an artifact's parts as A2A parts.
func partsOf(ps []runtime.ArtifactPart) []Part {
	out := make([]Part, 0, len(ps))
	for _, p := range ps {
		switch {
		case p.Type == "data":
			out = append(out, Part{Data: p.Data, MediaType: "application/json"})
		case p.Type == "file" && p.URL != "":
			out = append(out, Part{URL: p.URL, MediaType: p.MediaType, Filename: p.Name})
		case p.Type == "file":
			raw := p.Bytes
			if raw == nil {
				raw = []byte{}
			}
			out = append(out, Part{Raw: raw, MediaType: p.MediaType, Filename: p.Name})
		default:
			out = append(out, textPart(p.Text))
		}
	}
	if len(out) == 0 {
		out = []Part{textPart("")}
	}
	return out
}

// outcomeOf is how the agent asked its answer to be taken, from the output
// items of a completed envelope: runtime.ActivityRejected or
// ActivityAuthRequired (the last one said wins), or "".
func outcomeOf(items []runtime.OutputItem) string {
	outcome := ""
	for _, it := range items {
		if it.Type == "agent_activity" && (it.Activity == runtime.ActivityRejected || it.Activity == runtime.ActivityAuthRequired) {
			outcome = it.Activity
		}
	}
	return outcome
}

// wantsTask reports whether a completed answer is to be a task rather
// than a direct message: it has an artifact, or the agent asked for a task
// or for a rejected or auth-required end.
func wantsTask(env runtime.Envelope) bool {
	for _, it := range env.Output {
		switch {
		case it.Type == "artifact":
			return true
		case it.Type == "agent_activity" && (it.Activity == runtime.ActivityTask ||
			it.Activity == runtime.ActivityRejected || it.Activity == runtime.ActivityAuthRequired):
			return true
		}
	}
	return false
}

// endAsOutcome ends a completed task as the agent asked: rejected
// (terminal) or auth-required (waiting for the client's credentials), with
// the answer's text as the status message.
func (m *mapper) endAsOutcome(f frame, out []StreamEvent) []StreamEvent {
	text := f.OutputText
	if f.Outcome == runtime.ActivityRejected {
		if text == "" {
			text = "The agent rejected the request"
		}
		return append(out, m.end(stateRejected, f.Seq, text))
	}
	if text == "" {
		text = "The agent needs authentication to go on"
	}
	return append(out, m.end(stateAuthRequired, f.Seq, text))
}
