package chat

import "encoding/json"

// wireAnswer is what a completion (completion.go) and a chunk of a stream
// (stream.go) both carry besides their choices.
type wireAnswer struct {
	Model string          `json:"model"`
	Usage json.RawMessage `json:"usage"`
	Error json.RawMessage `json:"error"`
}

func (w *wireAnswer) answer() *wireAnswer { return w }

// decodeAnswer reads one JSON answer of the endpoint, a completion or a
// chunk, into v. Text that is not JSON is malformed (what, "body" or
// "chunk", names it in the log); an answer that holds an error object is
// the error the endpoint reported, logged as reported says.
func (c *Client) decodeAnswer(data []byte, v interface{ answer() *wireAnswer }, what, reported string) error {
	if err := json.Unmarshal(data, v); err != nil {
		c.warn("the model endpoint sent a "+what+" that is not valid JSON", what, c.redactor.bounded(data, false))
		return malformedError()
	}
	if e := v.answer().Error; isPresent(e) {
		c.warn(reported, "error", c.redactor.bounded(e, false))
		return reportedError()
	}
	return nil
}
