package apidoc

import (
	"sort"
	"strconv"

	"github.com/getkin/kin-openapi/openapi3"
)

// Operation helpers: parameters, bodies, replies and headers.

func pathParam(name, desc string) *openapi3.ParameterRef {
	p := openapi3.NewPathParameter(name).WithDescription(desc)
	p.Schema = nonEmptyStr("")
	return &openapi3.ParameterRef{Value: p}
}

func queryParam(name, desc string, required bool, s *openapi3.SchemaRef) *openapi3.ParameterRef {
	p := openapi3.NewQueryParameter(name).WithDescription(desc).WithRequired(required)
	p.Schema = s
	return &openapi3.ParameterRef{Value: p}
}

func sessionPathParam() *openapi3.ParameterRef {
	return pathParam("sessionId", "The session ID.")
}

func limitParam() *openapi3.ParameterRef {
	s := openapi3.NewIntegerSchema().WithMin(1).WithMax(100).WithDefault(100)
	return queryParam("limit", "The largest number of items to return (1 to 100).", false, inline(s))
}

func cursorParam() *openapi3.ParameterRef {
	return queryParam("cursor", "The `nextCursor` of the previous page, passed back unchanged.", false, str(""))
}

func jsonBody(desc string, s *openapi3.SchemaRef) *openapi3.RequestBodyRef {
	return &openapi3.RequestBodyRef{Value: &openapi3.RequestBody{
		Description: desc,
		Required:    true,
		Content:     openapi3.Content{mediaJSON: &openapi3.MediaType{Schema: s}},
	}}
}

func example(summary string, value any) *openapi3.ExampleRef {
	return &openapi3.ExampleRef{Value: &openapi3.Example{Summary: summary, Value: value}}
}

// reply is one entry of an operation's responses.
type reply struct {
	status int
	value  *openapi3.Response
}

func jsonReply(status int, desc string, s *openapi3.SchemaRef) reply {
	return reply{status: status, value: &openapi3.Response{
		Description: &desc,
		Content:     openapi3.Content{mediaJSON: &openapi3.MediaType{Schema: s}},
	}}
}

func emptyReply(status int, desc string) reply {
	return reply{status: status, value: &openapi3.Response{Description: &desc}}
}

// example sets the JSON example of a reply.
func (r reply) example(v any) reply {
	r.value.Content.Get(mediaJSON).Example = v
	return r
}

// examples sets named JSON examples of a reply.
func (r reply) examples(ex openapi3.Examples) reply {
	r.value.Content.Get(mediaJSON).Examples = ex
	return r
}

// headers sets the headers of a reply.
func (r reply) headers(h openapi3.Headers) reply {
	r.value.Headers = h
	return r
}

func header(desc string, s *openapi3.SchemaRef) *openapi3.HeaderRef {
	return &openapi3.HeaderRef{Value: &openapi3.Header{Parameter: openapi3.Parameter{Description: desc, Schema: s}}}
}

func headerParam(name, desc string, s *openapi3.SchemaRef) *openapi3.ParameterRef {
	p := openapi3.NewHeaderParameter(name).WithDescription(desc)
	p.Schema = s
	return &openapi3.ParameterRef{Value: p}
}

// failure is an error reply whose body is the Error schema.
func (b *builder) failure(status int, desc string) reply {
	return jsonReply(status, desc, b.ref("Error"))
}

func (b *builder) tooLarge() reply {
	return b.failure(413, "The request body is larger than the server allows (1 MiB by default).")
}

func (b *builder) notJSON() reply {
	return b.failure(415, "Content-Type must be application/json")
}

func replies(rs ...reply) *openapi3.Responses {
	sort.SliceStable(rs, func(i, j int) bool { return rs[i].status < rs[j].status })
	out := openapi3.NewResponsesWithCapacity(len(rs))
	for _, r := range rs {
		out.Set(strconv.Itoa(r.status), &openapi3.ResponseRef{Value: r.value})
	}
	return out
}

// sseMedia is a body of Server-Sent Events: a string described by desc,
// with an example stream.
func sseMedia(desc, example string) *openapi3.MediaType {
	return &openapi3.MediaType{Schema: describe(openapi3.NewStringSchema(), desc), Example: example}
}

// sseReply is a 200 whose body is Server-Sent Events.
func sseReply(desc, streamDesc, example string) reply {
	return reply{status: 200, value: &openapi3.Response{
		Description: &desc,
		Content:     openapi3.Content{mediaSSE: sseMedia(streamDesc, example)},
	}}
}
