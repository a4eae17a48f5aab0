package apidoc

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/legacy"
)

const (
	testInputSchema  = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","required":["city","days"],"additionalProperties":false,"properties":{"city":{"type":"string","minLength":1},"days":{"type":"integer","minimum":1,"maximum":7}}}`
	testOutputSchema = `{"type":"object","required":["summary"],"properties":{"summary":{"type":"string"}}}`
)

// TestTypedContractInTheDocument checks that a typed agent's document
// validates (kin-openapi), refers createAgentResponse's input to
// AgentInput and the envelope's result to AgentOutput, and that its
// examples are typed; and that kin-openapi's request validation, reading
// the document, refuses a bad typed input and accepts the example.
func TestTypedContractInTheDocument(t *testing.T) {
	doc := mustDocument(t, Options{AgentName: "typed", InputSchema: testInputSchema, OutputSchema: testOutputSchema})
	_, _, op := operationByID(doc, "createAgentResponse")
	media := op.RequestBody.Value.Content.Get(mediaJSON)
	if ref := media.Schema.Value.Properties["input"].Ref; ref != schemaPrefix+"AgentInput" {
		t.Fatalf("input refers to %q", ref)
	}
	if ref := doc.Components.Schemas["ResponseEnvelope"].Value.Properties["result"].Ref; ref != schemaPrefix+"AgentOutput" {
		t.Fatalf("result refers to %q", ref)
	}
	ex := media.Examples["newConversation"].Value.Value.(map[string]any)["input"]
	if b, _ := json.Marshal(ex); string(b) != `{"city":"example","days":1}` {
		t.Fatalf("typed example %s", b)
	}

	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	check := func(body string) error {
		req := httptestRequest(t, body)
		route, params, err := router.FindRoute(req)
		if err != nil {
			t.Fatal(err)
		}
		return openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{
			Request: req, PathParams: params, Route: route, Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}})
	}
	if err := check(`{"input":{"city":"Paris","days":3}}`); err != nil {
		t.Fatalf("a good typed input: %v", err)
	}
	if err := check(`{"input":{"city":"Paris","days":9}}`); err == nil {
		t.Fatal("a bad typed input passed the document's schema")
	}
}

// TestUntypedDocumentUnchanged checks that an untyped agent has no
// contract schemas.
func TestUntypedDocumentUnchanged(t *testing.T) {
	doc := mustDocument(t, Options{AgentName: "plain"})
	if doc.Components.Schemas["AgentInput"] != nil || doc.Components.Schemas["AgentOutput"] != nil {
		t.Fatal("an untyped agent's document has contract schemas")
	}
	var _ *openapi3.T = doc
}

// httptestRequest is a POST /responses with a JSON body.
func httptestRequest(t *testing.T, body string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:1907/responses", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mediaJSON)
	return req
}

// TestContractSchemaBeyondOpenAPI30 checks that a JSON Schema OpenAPI 3.0
// cannot say still gives a valid document, with the schema beside it.
func TestContractSchemaBeyondOpenAPI30(t *testing.T) {
	doc := mustDocument(t, Options{InputSchema: `{"type":["object","null"],"prefixItems":[{"type":"string"}]}`})
	if doc.Components.Schemas["AgentInput"].Value.Extensions["x-json-schema"] == nil {
		t.Fatal("the schema is not kept beside the fallback")
	}
}
