// Package jsonscan reads JSON text token by token without reflection and
// without building values nobody asked for: the base of the transports'
// fast decoders of their most common requests (neutral's POST /responses,
// A2A's SendMessage). A fast decoder only ever accepts: for anything it
// does not handle, or any error, it steps aside and encoding/json decodes
// the text and words the error, so the fast path can never refuse what the
// general one accepts.
package jsonscan
