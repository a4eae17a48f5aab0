package chat

import (
	"io"
)

// maxCompletionBytes bounds a non-streamed completion.
const maxCompletionBytes = 16 << 20

// wireCompletion is a non-streamed chat.completion object.
type wireCompletion struct {
	wireAnswer
	Choices []struct {
		Message      wireMessage `json:"message"`
		FinishReason string      `json:"finish_reason"`
	} `json:"choices"`
}

// readCompletion reads a server's plain JSON answer to a streamed
// request: one message, handed to the handlers as one delta each.
func (c *Client) readCompletion(body io.Reader, a *assembly) error {
	b, cut, err := readBounded(body, maxCompletionBytes)
	switch {
	case err != nil:
		return &ioError{err}
	case cut:
		c.warn("the model endpoint sent a JSON completion larger than 16 MiB")
		return malformedError()
	}
	var completion wireCompletion
	if err := c.decodeAnswer(b, &completion, "body", "the model endpoint reported an error"); err != nil {
		return err
	}
	if len(completion.Choices) == 0 {
		c.warn("the model endpoint sent a JSON completion without choices", "body", c.redactor.bounded(b, false))
		return malformedError()
	}
	a.model = completion.Model
	a.setUsage(completion.Usage)
	choice := completion.Choices[0]
	for i := range choice.Message.ToolCalls {
		index := i // each is a whole call, whatever index it carries
		choice.Message.ToolCalls[i].Index = &index
	}
	if ok, err := a.addMessage(choice.Message); err != nil {
		return err
	} else if !ok {
		c.warn("the model endpoint sent a message whose content is neither text nor parts", "body", c.redactor.bounded(b, false))
		return malformedError()
	}
	a.finish = choice.FinishReason
	return nil
}
