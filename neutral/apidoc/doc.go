// Package apidoc describes harnest's neutral HTTP API as an OpenAPI 3.0.3
// document and serves it.
//
// Document builds the description in code with kin-openapi types, so the
// schemas live next to the Go that produces them rather than in a
// hand-written JSON file. Handler serves that document as /openapi.json and
// /openapi.yaml, plus an embedded Swagger UI at /docs that loads no assets
// from outside the server.
package apidoc
