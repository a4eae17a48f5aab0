package backend

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/harnest/harnest/runtime"
)

// wArtifact is the line a worker sends for one chunk of an artifact:
//
//	{"type":"artifact","id":...,"artifactId":...,"name"?:...,"description"?:...,
//	 "parts":[...],"append"?:bool,"lastChunk"?:bool,"metadata"?:{...}}
//
// where each part is {"type":"text","text":...}, {"type":"data","data":<any
// JSON>}, or {"type":"file","bytes":"<base64>"|"url":...,"mediaType"?:...,
// "name"?:...}.
const wArtifact = "artifact"

// decodeArtifact reads the fields of an artifact line.
func decodeArtifact(fields lineFields) (*runtime.ArtifactInfo, error) {
	var a runtime.ArtifactInfo
	var err error
	if a.ID, err = fields.str("artifactId", true); err != nil {
		return nil, err
	}
	if a.Name, err = fields.str("name", false); err != nil {
		return nil, err
	}
	if a.Description, err = fields.str("description", false); err != nil {
		return nil, err
	}
	if a.Append, err = fields.boolean("append"); err != nil {
		return nil, err
	}
	if a.LastChunk, err = fields.boolean("lastChunk"); err != nil {
		return nil, err
	}
	if raw, ok := fields["metadata"]; ok && !isNull(raw) {
		if a.Metadata, err = fields.object("metadata", false); err != nil {
			return nil, err
		}
	}
	raw, ok := fields["parts"]
	if !ok || isNull(raw) {
		return nil, errors.New(`field "parts" is missing`)
	}
	var parts []map[string]json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &parts) != nil {
		return nil, errors.New(`field "parts" must be an array of objects`)
	}
	for i, p := range parts {
		part, err := decodeArtifactPart(lineFields(p))
		if err != nil {
			return nil, fmt.Errorf("parts[%d]: %w", i, err)
		}
		a.Parts = append(a.Parts, part)
	}
	if a.Parts == nil {
		a.Parts = []runtime.ArtifactPart{}
	}
	return &a, nil
}

// decodeArtifactPart reads one part of an artifact line.
func decodeArtifactPart(f lineFields) (runtime.ArtifactPart, error) {
	var p runtime.ArtifactPart
	var err error
	if p.Type, err = f.str("type", true); err != nil {
		return p, err
	}
	switch p.Type {
	case "text":
		p.Text, err = f.str("text", false)
	case "data":
		raw, ok := f["data"]
		if !ok {
			return p, errors.New(`field "data" is missing`)
		}
		p.Data = raw
	case "file":
		p.Bytes, p.URL, p.MediaType, p.Name, err = decodeFilePart(f)
	default:
		return p, fmt.Errorf("unknown part type %s (text, data or file)", quoteShort(p.Type))
	}
	return p, err
}

// decodeFilePart reads a file part: base64 bytes or a URL, exactly one.
func decodeFilePart(f lineFields) (data []byte, url, mediaType, name string, err error) {
	b64, err := f.str("bytes", false)
	if err != nil {
		return nil, "", "", "", err
	}
	if url, err = f.str("url", false); err != nil {
		return nil, "", "", "", err
	}
	if mediaType, err = f.str("mediaType", false); err != nil {
		return nil, "", "", "", err
	}
	if name, err = f.str("name", false); err != nil {
		return nil, "", "", "", err
	}
	if (b64 == "") == (url == "") {
		return nil, "", "", "", errors.New(`a file part has exactly one of "bytes" and "url"`)
	}
	if b64 != "" {
		if base64.StdEncoding.DecodedLen(len(b64)) > runtime.MaxArtifactFileBytes+3 {
			return nil, "", "", "", fmt.Errorf(`field "bytes" is over %s; send a larger file by "url"`, runtime.FormatBytes(runtime.MaxArtifactFileBytes))
		}
		if data, err = base64.StdEncoding.DecodeString(b64); err != nil {
			return nil, "", "", "", errors.New(`field "bytes" must be standard base64`)
		}
	}
	return data, url, mediaType, name, nil
}

// boolean reads an optional boolean field (missing or null is false).
func (f lineFields) boolean(name string) (bool, error) {
	raw, ok := f[name]
	if !ok || isNull(raw) {
		return false, nil
	}
	switch string(raw) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("field %q must be true or false", name)
}
