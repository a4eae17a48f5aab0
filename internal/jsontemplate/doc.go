// Package jsontemplate renders text from a JSON document: a template is
// text with JSON pointers (RFC 6901) in braces, such as
// "New issue {/issue/title}". A string value is put in as it is, any
// other value as compact JSON; "{{" and "}}" are literal braces. Parse
// checks a template once (config load); Render fills it from a decoded
// document and names the first pointer the document has no value at.
package jsontemplate
