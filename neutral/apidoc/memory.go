package apidoc

import (
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
)

// ---------------------------------------------------------------------------
// Memory: long-term memory per user (package memoryapi)

const tagMemory = "Memory"

const memoryTagDescription = "Harnest extension: long-term memory that outlives sessions, per user (and per agent), in " +
	"namespaces, each item a JSON value under a key with an optional time to live. Search is by keyword (the query's " +
	"words found in the item's key, text and string values) or, when the agent sets `spec.memory.embeddings`, semantic " +
	"(cosine similarity of embeddings). A user never sees another's items; an owner may act for a user with `?user=`. " +
	"With `spec.memory.tools`, the model backend may call `memory_save` and `memory_search` in the caller's memory."

func memoryUserParam() *openapi3.ParameterRef {
	return queryParam("user", "Owners only: the user whose memory to reach (default: the caller's).", false, str(""))
}

func memoryItemSchema() *openapi3.SchemaRef {
	return object("An item of memory.",
		req("namespace", str("The item's namespace.")),
		req("key", str("The item's key in its namespace.")),
		req("value", anyValue("The item's value: any JSON value.")),
		opt("text", str("What search reads beside the key and the value's strings.")),
		req("createdAt", timestamp("When the item was first stored (an upsert keeps it).")),
		req("updatedAt", timestamp("When the item was last stored.")),
		opt("expiresAt", timestamp("When the item expires; absent: never.")),
	)
}

func memoryHitSchema() *openapi3.SchemaRef {
	s := memoryItemSchema()
	hit := *s.Value
	hit.Description = "An item a search found, with its score."
	hit.Properties = openapi3.Schemas{}
	for k, v := range s.Value.Properties {
		hit.Properties[k] = v
	}
	hit.Properties["score"] = describe(openapi3.NewFloat64Schema(),
		"How well it matches: the number of the query's words it has (keyword), or the cosine similarity (semantic).")
	hit.Required = append(append([]string(nil), s.Value.Required...), "score")
	return &openapi3.SchemaRef{Value: &hit}
}

func (b *builder) addMemory(doc *openapi3.T) {
	doc.Tags = append(doc.Tags, &openapi3.Tag{Name: tagMemory, Description: memoryTagDescription})
	op := b.extensionOps(doc, tagMemory)
	bad := b.failure(400, "A field is refused: the code names it (`invalid_namespace`, `invalid_key`, `invalid_value`, "+
		"`invalid_text`, `invalid_ttl_seconds`, `invalid_body` for an unknown member); nothing is stored.")
	notFound := b.failure(404, "No such item in this user's memory (or `?user=` from someone not an owner).")
	embeddings := b.failure(502, "The embeddings endpoint (`spec.memory.embeddings`) failed (`embeddings_unavailable`); nothing is stored.")
	byKey := openapi3.Parameters{pathParam("namespace", "The namespace."), pathParam("key", "The key in the namespace."), memoryUserParam()}
	one := jsonReply(200, "The item.", memoryItemSchema())
	op("/memory/{namespace}/{key}", http.MethodPut, "putMemoryItem", "Store an item",
		"stores an item (replacing the one under the same namespace and key, keeping its `createdAt`).", byKey,
		jsonBody("The item.", strictObject("An item to store.",
			req("value", anyValue("Any JSON value but null (at most 64 KiB).")),
			opt("text", str("What search should read beside the key and the value's strings (at most 16 KiB).")),
			opt("ttlSeconds", integer("Forget the item after this many seconds (1 to 315360000); absent: keep it.")))),
		one, bad, embeddings, b.tooLarge())
	op("/memory/{namespace}/{key}", http.MethodGet, "getMemoryItem", "Read an item", "one item.", byKey, nil, one, notFound)
	op("/memory/{namespace}/{key}", http.MethodDelete, "deleteMemoryItem", "Delete an item", "deletes one item.", byKey, nil,
		emptyReply(204, "Deleted."), notFound)
	op("/memory/{namespace}", http.MethodGet, "listMemoryItems", "List a namespace",
		"the items of a namespace in key order, a page at a time.",
		openapi3.Parameters{pathParam("namespace", "The namespace."), memoryUserParam(), cursorParam(), limitParam()}, nil,
		jsonReply(200, "A page of items.", pageOf("items", memoryItemSchema())),
		b.failure(400, "`limit` is not 1 to 100, or the namespace is refused."))
	op("/memory/search", http.MethodPost, "searchMemory", "Search memory",
		"the user's items that best match a query, the best first (keyword or semantic, as `search` says).",
		openapi3.Parameters{memoryUserParam()},
		jsonBody("The query.", strictObject("A search.",
			req("query", str("What to look for.")),
			opt("namespace", str("Search this namespace only (default: all).")),
			opt("limit", integer("How many items at most, 1 to 100 (default 10).")))),
		jsonReply(200, "The items found.", object("",
			req("items", arrayOf("", memoryHitSchema())),
			req("search", enumStr("How the items were ranked.", "keyword", "semantic")))),
		b.failure(400, "A field is refused: `invalid_query`, `invalid_namespace`, `invalid_limit` or `invalid_body`."),
		embeddings, b.tooLarge())
}
