// Package contract is an agent's typed contract: the JSON Schemas of its
// input and of its output (spec.inputSchema and spec.outputSchema of the
// agent folder). Compile turns a schema into a Schema; Schema.Check says
// where a value breaks it, as a list of Violations, each with the JSON
// Pointer of the place and a sentence; Contract holds both schemas of an
// agent, and ParseOutput reads an answer's JSON object out of its text.
//
// The validator is github.com/santhosh-tekuri/jsonschema/v6 (draft
// 2020-12 unless a schema's $schema says otherwise). A schema must be
// self-contained: a $ref to another document is refused when it compiles,
// so that checking never reads a file or the network. The package is a
// leaf: the runtime checks input and output with it, config compiles the
// schemas when the folder loads, and backends and doors read them.
package contract
