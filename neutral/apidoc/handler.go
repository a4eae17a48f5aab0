package apidoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/swaggest/swgui/v5emb"
	"gopkg.in/yaml.v3"
)

const (
	jsonPath = "/openapi.json"
	yamlPath = "/openapi.yaml"
	docsPath = "/docs"

	mediaYAML = "application/yaml"
)

// Handler serves doc at GET /openapi.json and GET /openapi.yaml, and an
// embedded Swagger UI for it at GET /docs (assets under /docs/). HEAD is
// accepted wherever GET is. Other paths get 404; other methods get 405.
//
// Both serializations are produced once, here; later changes to doc are not
// reflected.
func Handler(doc *openapi3.T) (http.Handler, error) {
	if doc == nil {
		return nil, errors.New("apidoc: nil document")
	}
	jsonBytes, err := encodeJSON(doc)
	if err != nil {
		return nil, err
	}
	yamlBytes, err := encodeYAML(jsonBytes)
	if err != nil {
		return nil, err
	}
	title := "API"
	if doc.Info != nil && doc.Info.Title != "" {
		title = doc.Info.Title
	}
	return &handler{
		json: jsonBytes,
		yaml: yamlBytes,
		ui:   v5emb.New(title, jsonPath, docsPath),
	}, nil
}

type handler struct {
	json []byte
	yaml []byte
	ui   http.Handler
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	isDocs := path == docsPath || strings.HasPrefix(path, docsPath+"/")
	if path != jsonPath && path != yamlPath && !isDocs {
		http.NotFound(w, r)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	switch path {
	case jsonPath:
		writeBody(w, r, mediaJSON, h.json)
	case yamlPath:
		w.Header().Set("Content-Disposition", `inline; filename="openapi.yaml"`)
		writeBody(w, r, mediaYAML, h.yaml)
	default:
		h.ui.ServeHTTP(w, r)
	}
}

func writeBody(w http.ResponseWriter, r *http.Request, contentType string, body []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write(body)
}

// encodeJSON renders doc with kin-openapi's marshalling, indented for reading.
func encodeJSON(doc *openapi3.T) ([]byte, error) {
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("apidoc: encode JSON: %w", err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, raw, "", "  "); err != nil {
		return nil, fmt.Errorf("apidoc: indent JSON: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

// encodeYAML converts the JSON rendering to YAML. JSON is valid YAML, so
// yaml.v3 parses it into a node tree that keeps the key order; the JSON
// quoting and flow style are then dropped and a few well-known objects are
// put in reading order before the tree is written out in block style.
func encodeYAML(jsonBytes []byte) ([]byte, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(jsonBytes, &root); err != nil {
		return nil, fmt.Errorf("apidoc: parse JSON as YAML: %w", err)
	}
	plainStyle(&root)
	if len(root.Content) == 1 {
		arrangeDocument(root.Content[0])
	}
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&root); err != nil {
		return nil, fmt.Errorf("apidoc: encode YAML: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("apidoc: encode YAML: %w", err)
	}
	return out.Bytes(), nil
}

// plainStyle clears the JSON-derived styles so the encoder picks block style
// and quotes scalars only where YAML needs it.
func plainStyle(n *yaml.Node) {
	n.Style = 0
	for _, c := range n.Content {
		plainStyle(c)
	}
}

// Reading orders for the YAML rendering. Keys not listed keep their
// (alphabetical) place after the listed ones.
var (
	documentKeyOrder    = []string{"openapi", "info", "tags", "security", "paths", "components"}
	infoKeyOrder        = []string{"title", "version", "description"}
	tagKeyOrder         = []string{"name", "description"}
	pathItemKeyOrder    = []string{"get", "head", "post", "put", "patch", "delete", "options", "trace"}
	operationKeyOrder   = []string{"tags", "operationId", "summary", "description", "security", "parameters", "requestBody", "responses"}
	parameterKeyOrder   = []string{"name", "in", "required", "description", "schema"}
	requestBodyKeyOrder = []string{"description", "required", "content"}
	responseKeyOrder    = []string{"description", "headers", "content"}
	mediaTypeKeyOrder   = []string{"schema", "example", "examples"}
	exampleKeyOrder     = []string{"summary", "description", "value"}
	schemaKeyOrder      = []string{
		"$ref", "type", "format", "description", "nullable", "enum", "default",
		"minimum", "maximum", "minLength", "maxLength", "required", "properties", "items", "additionalProperties",
	}
)

// arrangeDocument puts the well-known objects of the document in a
// conventional reading order. Example values are left untouched.
func arrangeDocument(doc *yaml.Node) {
	orderKeys(doc, documentKeyOrder)
	orderKeys(mapValue(doc, "info"), infoKeyOrder)
	for _, tag := range seqItems(mapValue(doc, "tags")) {
		orderKeys(tag, tagKeyOrder)
	}
	for _, item := range mapValues(mapValue(doc, "paths")) {
		orderKeys(item, pathItemKeyOrder)
		for _, op := range mapValues(item) {
			arrangeOperation(op)
		}
	}
	for _, schema := range mapValues(mapValue(mapValue(doc, "components"), "schemas")) {
		arrangeSchema(schema)
	}
}

func arrangeOperation(op *yaml.Node) {
	orderKeys(op, operationKeyOrder)
	for _, p := range seqItems(mapValue(op, "parameters")) {
		orderKeys(p, parameterKeyOrder)
		arrangeSchema(mapValue(p, "schema"))
	}
	if body := mapValue(op, "requestBody"); body != nil {
		orderKeys(body, requestBodyKeyOrder)
		arrangeContent(mapValue(body, "content"))
	}
	for _, resp := range mapValues(mapValue(op, "responses")) {
		orderKeys(resp, responseKeyOrder)
		arrangeContent(mapValue(resp, "content"))
	}
}

func arrangeContent(content *yaml.Node) {
	for _, media := range mapValues(content) {
		orderKeys(media, mediaTypeKeyOrder)
		arrangeSchema(mapValue(media, "schema"))
		for _, ex := range mapValues(mapValue(media, "examples")) {
			orderKeys(ex, exampleKeyOrder)
		}
	}
}

func arrangeSchema(schema *yaml.Node) {
	if schema == nil {
		return
	}
	orderKeys(schema, schemaKeyOrder)
	// Required properties first, in the order the schema lists them.
	var required []string
	for _, name := range seqItems(mapValue(schema, "required")) {
		required = append(required, name.Value)
	}
	orderKeys(mapValue(schema, "properties"), required)
	for _, prop := range mapValues(mapValue(schema, "properties")) {
		arrangeSchema(prop)
	}
	arrangeSchema(mapValue(schema, "items"))
	arrangeSchema(mapValue(schema, "additionalProperties"))
}

// mapValues returns the values of a mapping node, or nil for other nodes.
func mapValues(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	values := make([]*yaml.Node, 0, len(n.Content)/2)
	for i := 1; i < len(n.Content); i += 2 {
		values = append(values, n.Content[i])
	}
	return values
}

// seqItems returns the items of a sequence node, or nil for other nodes.
func seqItems(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

// mapValue returns the value stored under key in a mapping node, or nil.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// orderKeys moves the listed keys of a mapping node to the front, in the
// listed order, keeping the relative order of the remaining keys.
func orderKeys(n *yaml.Node, order []string) {
	if n == nil || n.Kind != yaml.MappingNode {
		return
	}
	rank := make(map[string]int, len(order))
	for i, k := range order {
		rank[k] = i
	}
	var first, rest []*yaml.Node
	slots := make([][]*yaml.Node, len(order))
	for i := 0; i+1 < len(n.Content); i += 2 {
		pair := n.Content[i : i+2]
		if r, ok := rank[pair[0].Value]; ok {
			slots[r] = pair
		} else {
			rest = append(rest, pair...)
		}
	}
	for _, pair := range slots {
		first = append(first, pair...)
	}
	n.Content = append(first, rest...)
}
