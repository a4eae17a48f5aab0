package apidoc

import (
	"github.com/getkin/kin-openapi/openapi3"
)

// ---------------------------------------------------------------------------
// Artifacts: outputs of a turn beside its message (a file, a table, a
// document), as runtime/artifact.go encodes them: the `artifact` of a
// response.artifact event, and the `artifact` output item of the envelope.

// maxArtifactFileBytes is runtime.MaxArtifactFileBytes: the bytes of one
// file part (bigger files go by URL).
const maxArtifactFileBytes = 1 << 20

func (b *builder) defineArtifactSchemas() {
	typeIs := func(t string) field { return req("type", enumStr("Always `"+t+"`.", t)) }
	fileFields := func(fs ...field) []field {
		return append([]field{typeIs("file")}, append(fs,
			opt("mediaType", str("The file's media type, when known.")),
			opt("name", str("The file's name, when known.")),
		)...)
	}
	b.define("ArtifactPart", inline(&openapi3.Schema{
		Description: "One piece of an artifact: text, a JSON value, or a file carried as bytes or named by URL.",
		OneOf: openapi3.SchemaRefs{
			strictObject("A text part.", typeIs("text"), req("text", str("The text."))),
			strictObject("A data part.", typeIs("data"), req("data", anyValue("Any JSON value."))),
			strictObject("A file carried in the artifact.", fileFields(
				req("bytes", describe(openapi3.NewBytesSchema().WithMaxLength(base64Len(maxArtifactFileBytes)),
					"The file's content, standard base64 (at most 1 MiB before encoding).")))...),
			strictObject("A file named by URL (the server never fetches it).", fileFields(
				req("url", nonEmptyStr("The file's address.")))...),
		},
	}))

	b.define("ArtifactChunk", object("The `artifact` of a `response.artifact` event: one chunk of an artifact. "+
		"The first chunk of an `artifactId` makes the artifact (or, without `append`, replaces it); later chunks with "+
		"`append` add their parts to it, and `lastChunk` says it is complete.",
		req("artifactId", str("The artifact's ID within the response; the chunks of one artifact share it.")),
		opt("name", str("The artifact's name.")),
		opt("description", str("What the artifact is.")),
		req("parts", arrayOf("The parts of this chunk, in order.", b.ref("ArtifactPart"))),
		opt("append", boolean("Adds `parts` to the artifact of an earlier chunk instead of making it.", false)),
		opt("lastChunk", boolean("The artifact is complete.", false)),
		opt("metadata", freeObject("The artifact's own metadata.")),
	))
}

// base64Len is the length of n bytes in padded base64.
func base64Len(n int64) int64 { return 4 * ((n + 2) / 3) }

// artifactItemText describes the artifact output item in OutputItem.
const artifactItemText = "`artifact`: one item per `artifactId`, its chunks joined (adjacent text parts of appended " +
	"chunks become one part)"

// artifactEventText is the response.artifact line of the event list.
const artifactEventText = "- `response.artifact`: one chunk of an artifact (a file, a table, a document) in `artifact` " +
	"(`artifactId`, `name`, `description`, `parts`, `append`, `lastChunk`, `metadata`; see the ArtifactChunk schema). " +
	"The envelope's `output` holds one `artifact` item per artifact.\n"
