package apidoc

import (
	"net/http"
	"sync"
)

// served holds the handlers built by HandlerFor, one per Options: a
// document takes tens of milliseconds to build and encode, and every server
// of a process (tests start hundreds) with the same options serves the same
// bytes.
var served sync.Map // Options -> http.Handler

// HandlerFor serves the document of o (see Document and Handler), built
// once per distinct Options in this process. The handler only reads what it
// holds, so servers may share it.
func HandlerFor(o Options) (http.Handler, error) {
	if h, ok := served.Load(o); ok {
		return h.(http.Handler), nil
	}
	doc, err := Document(o)
	if err != nil {
		return nil, err
	}
	h, err := Handler(doc)
	if err != nil {
		return nil, err
	}
	actual, _ := served.LoadOrStore(o, h)
	return actual.(http.Handler), nil
}
