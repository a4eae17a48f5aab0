package apidoc

import (
	"net/http"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/harnest/harnest/internal/media"
)

// ---------------------------------------------------------------------------
// Session assets

const uploadDescription = "Stores the raw request body as an asset of the session and describes it. " +
	"`Content-Type` must be one of the supported media types and match the content's signature " +
	"(`application/octet-stream` accepts content with no recognised signature). " +
	"An asset is at most 10 MiB, or the server's request limit when that is lower; images are at most " +
	"16 million pixels, audio and video at most 300 seconds. A session's assets share a 100 MiB quota " +
	"and a user's a 500 MiB one. Send the returned `assetId` in a content part of `POST /responses` input."

// binaryContent is one entry per asset media type, each a binary string.
func binaryContent() openapi3.Content {
	c := openapi3.Content{}
	for _, mt := range assetMediaTypes {
		c[mt] = &openapi3.MediaType{Schema: describe(openapi3.NewStringSchema().WithFormat("binary"), "The raw content.")}
	}
	return c
}

func assetPathParam() *openapi3.ParameterRef {
	return pathParam("assetId", "The `assetId` the upload returned.")
}

// assetHeaders are the headers of a successful asset read.
func assetHeaders(partial bool) openapi3.Headers {
	h := openapi3.Headers{
		"Accept-Ranges":  header("Always `bytes`: single byte ranges are served.", enumStr("", "bytes")),
		"Content-Length": header("The bytes in this reply.", describe(openapi3.NewInt64Schema().WithMin(0), "")),
	}
	if partial {
		h["Content-Range"] = header("The range served, as `bytes <first>-<last>/<size>`.", str(""))
	}
	return h
}

func (b *builder) addAssets(doc *openapi3.T) {
	types := "`" + strings.Join(assetMediaTypes, "`, `") + "`"
	uploadBody := &openapi3.RequestBodyRef{Value: &openapi3.RequestBody{
		Description: "The raw content, with its media type as `Content-Type`: one of " + types + ".",
		Required:    true,
		Content:     binaryContent(),
	}}

	created := jsonReply(201, "The stored asset.", b.ref("Asset")).example(map[string]any{
		"assetId": "asset_Q2hhbmdlTWVQbGVhc2UxMjM0", "mediaType": media.PNG, "sizeBytes": 48213, "width": 640, "height": 480,
	})

	doc.AddOperation("/sessions/{sessionId}/assets", http.MethodPost, b.op(tagSessions, "uploadSessionAsset",
		"Upload an asset", uploadDescription).
		params(sessionPathParam()).
		body(uploadBody).
		answers(
			created,
			b.failure(400, "The body is empty (`asset_empty`) or could not be read."),
			b.sessionNotFound(),
			b.failure(413, "The asset is too large, has too many pixels or seconds, or would exceed the session's or user's quota."),
			b.failure(415, "`Content-Type` is missing or unsupported, does not match the content, or the content is malformed."),
		).done())

	notSatisfiable := b.failure(416, "Invalid asset range: the range is malformed, refused, or starts past the end.").
		headers(openapi3.Headers{
			"Content-Range": header("`bytes */<size>`: the asset's size.", str("")),
		})
	// readOp is GET or HEAD of an asset: the whole of it or one byte range.
	readOp := func(id, summary, desc string) *operation {
		return b.op(tagSessions, id, summary, desc).params(
			sessionPathParam(),
			assetPathParam(),
			headerParam("Range", "One byte range, `bytes=<first>-<last>` or `bytes=<first>-`; a last byte past the end is cut to it. "+
				"Suffix ranges (`bytes=-N`), several ranges and other units are refused with 416.", str("")),
		).answers(notSatisfiable)
	}
	doc.AddOperation("/sessions/{sessionId}/assets/{assetId}", http.MethodGet, readOp("getSessionAsset", "Download an asset",
		"Returns the asset's content with its media type as `Content-Type`, or one byte range of it.").
		answers(
			assetReply(200, "The whole content.", binaryContent()),
			assetReply(206, "The requested range of the content.", binaryContent()),
			b.failure(404, "Asset not found (or the session is not the caller's)."),
		).done())
	doc.AddOperation("/sessions/{sessionId}/assets/{assetId}", http.MethodHead, readOp("headSessionAsset", "Check an asset",
		"The headers `GET` would send, without a body: the size, media type and range support.").
		answers(
			assetReply(200, "The asset exists; `Content-Length` is its size.", nil),
			assetReply(206, "The range is satisfiable; `Content-Length` is its length.", nil),
			b.failure(404, "Asset not found (no body is sent for HEAD)."),
		).done())

	doc.AddOperation("/sessions/{sessionId}/assets/{assetId}", http.MethodDelete, b.op(tagSessions, "deleteSessionAsset",
		"Delete an asset", "Deletes the asset and frees its bytes from the quotas. Deleting the session deletes its assets.").
		params(sessionPathParam(), assetPathParam()).
		answers(
			emptyReply(204, "The asset was deleted."),
			b.failure(404, "Asset not found"),
		).done())
}

// assetReply is a successful read of an asset: the whole of it (200) or a
// byte range (206), with its content (nil for HEAD).
func assetReply(status int, desc string, content openapi3.Content) reply {
	return reply{status: status, value: &openapi3.Response{
		Description: &desc,
		Headers:     assetHeaders(status == 206),
		Content:     content,
	}}
}
