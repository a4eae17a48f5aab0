// Package playground is the browser playground harnest serves at "/": a
// page of static files embedded in the binary that talks to the agent
// through the public API only (JSON, SSE, /live and AG-UI).
package playground
