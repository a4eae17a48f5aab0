package openaiapi

import (
	"encoding/base64"
	"strconv"
	"strings"
)

// responseRef is what an Open Responses response ID names: a segment of one
// harnest response. A harnest response runs until its first boundary (an
// answer, or a wait for a client tool or an approval); a caller that
// answers the wait (function_call_output or mcp_approval_response with
// previous_response_id) continues the same harnest response, and that
// continuation is a new Open Responses response whose events are the
// harnest events after After.
//
// The ID carries everything needed to find the segment on any replica, so
// that no lookup table is needed: "resp_" + the harnest response's 32 hex
// digits, then ".", the creation time (Unix seconds, base 36), ".", After+1
// (base 36), ".", "b" for a background response, "n" for a response not
// stored ("store": false) or "f", "." and the session ID (base64url,
// unpadded). The receipt is still read under the
// caller's user, so an ID of another user's response is not found.
type responseRef struct {
	ResponseID string // the harnest response ("resp_" + 32 hex)
	SessionID  string
	After      int   // the harnest sequence the segment starts after (-1: the whole response)
	Created    int64 // Unix seconds
	Background bool
	// Ephemeral: the response is not stored ("store": false,
	// responses_ephemeral.go): its ID is never found.
	Ephemeral bool
}

// String is the Open Responses ID.
func (r responseRef) String() string {
	mode := ".f."
	if r.Background {
		mode = ".b."
	} else if r.Ephemeral {
		mode = ".n."
	}
	return r.ResponseID + "." + strconv.FormatInt(r.Created, 36) + "." + strconv.FormatInt(int64(r.After+1), 36) + mode +
		base64.RawURLEncoding.EncodeToString([]byte(r.SessionID))
}

// parseResponseRef reads an Open Responses ID; ok is false for anything
// this door did not make.
func parseResponseRef(id string) (responseRef, bool) {
	parts := strings.Split(id, ".")
	if len(parts) != 5 || (parts[3] != "b" && parts[3] != "f" && parts[3] != "n") || len(parts[0]) != len("resp_")+32 || !strings.HasPrefix(parts[0], "resp_") || !isHex(parts[0][5:]) {
		return responseRef{}, false
	}
	created, err1 := strconv.ParseInt(parts[1], 36, 64)
	after, err2 := strconv.ParseInt(parts[2], 36, 32)
	session, err3 := base64.RawURLEncoding.DecodeString(parts[4])
	if err1 != nil || err2 != nil || err3 != nil || after < 0 || created < 0 || len(session) == 0 {
		return responseRef{}, false
	}
	return responseRef{ResponseID: parts[0], SessionID: string(session), After: int(after) - 1, Created: created,
		Background: parts[3] == "b", Ephemeral: parts[3] == "n"}, true
}

func isHex(s string) bool {
	for _, c := range s {
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// itemID names an output item after the segment's response and the harnest
// sequence of the event that started it, so that a replay of the same
// events (GET, or a stream resumed on another replica) names it the same.
func itemID(prefix string, ref responseRef, sequence int) string {
	return prefix + "_" + ref.ResponseID[5:] + "_" + strconv.Itoa(sequence)
}
