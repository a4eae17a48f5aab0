package apidoc

import "github.com/getkin/kin-openapi/openapi3"

// operation builds one operation of the document: op starts it with what
// every operation says (tag, ID, summary, description), the methods add what
// it takes and answers, and done returns it for doc.AddOperation. The
// standard replies of a JSON body (takesJSON, takesRelayJSON) are added
// where the body is; an own reply of the same status added after them
// replaces theirs.
type operation struct {
	b       *builder
	value   *openapi3.Operation
	replies []reply
}

func (b *builder) op(tag, id, summary, desc string) *operation {
	return &operation{b: b, value: &openapi3.Operation{
		Tags:        []string{tag},
		OperationID: id,
		Summary:     summary,
		Description: desc,
	}}
}

// relayOp is an operation of relay-poll-v1: it carries x-protocol.
func (b *builder) relayOp(tag, id, summary, desc string) *operation {
	o := b.op(tag, id, summary, desc)
	o.value.Extensions = map[string]any{"x-protocol": relayProtocol}
	return o
}

// params adds parameters, in order.
func (o *operation) params(ps ...*openapi3.ParameterRef) *operation {
	o.value.Parameters = append(o.value.Parameters, ps...)
	return o
}

// security sets who may call the operation.
func (o *operation) security(s *openapi3.SecurityRequirements) *operation {
	o.value.Security = s
	return o
}

// body sets the request body.
func (o *operation) body(rb *openapi3.RequestBodyRef) *operation {
	o.value.RequestBody = rb
	return o
}

// takesJSON sets a JSON request body, with the 413 and 415 replies of the
// neutral door's body reading.
func (o *operation) takesJSON(rb *openapi3.RequestBodyRef) *operation {
	return o.body(rb).answers(o.b.tooLarge(), o.b.notJSON())
}

// takesRelayJSON sets a relay JSON request body, with the relay's body
// errors; code names the 422's error codes.
func (o *operation) takesRelayJSON(rb *openapi3.RequestBodyRef, code string) *operation {
	return o.body(rb).answers(o.b.relayBodyErrors(code)...)
}

// callbacks sets the requests the server makes back to the caller.
func (o *operation) callbacks(cbs openapi3.Callbacks) *operation {
	o.value.Callbacks = cbs
	return o
}

// answers adds replies.
func (o *operation) answers(rs ...reply) *operation {
	o.replies = append(o.replies, rs...)
	return o
}

// done is the operation with its replies.
func (o *operation) done() *openapi3.Operation {
	o.value.Responses = replies(o.replies...)
	return o.value
}

// extensionOps returns what adds the operations of a harnest extension's
// tag in one call each: desc follows "Harnest extension: ", body may be nil.
func (b *builder) extensionOps(doc *openapi3.T, tag string) func(path, method, id, summary, desc string,
	params openapi3.Parameters, body *openapi3.RequestBodyRef, rs ...reply) {
	return func(path, method, id, summary, desc string, params openapi3.Parameters, body *openapi3.RequestBodyRef, rs ...reply) {
		doc.AddOperation(path, method, b.op(tag, id, summary, "Harnest extension: "+desc).
			params(params...).body(body).answers(rs...).done())
	}
}
