package apidoc

import "github.com/getkin/kin-openapi/openapi3"

// Schema helpers. Each returns an inline schema reference.

type field struct {
	name     string
	schema   *openapi3.SchemaRef
	required bool
}

func req(name string, s *openapi3.SchemaRef) field {
	return field{name: name, schema: s, required: true}
}
func opt(name string, s *openapi3.SchemaRef) field { return field{name: name, schema: s} }

func inline(s *openapi3.Schema) *openapi3.SchemaRef { return &openapi3.SchemaRef{Value: s} }

func describe(s *openapi3.Schema, desc string) *openapi3.SchemaRef {
	s.Description = desc
	return inline(s)
}

func str(desc string) *openapi3.SchemaRef { return describe(openapi3.NewStringSchema(), desc) }

func nonEmptyStr(desc string) *openapi3.SchemaRef {
	return describe(openapi3.NewStringSchema().WithMinLength(1), desc)
}

func nullableStr(desc string) *openapi3.SchemaRef {
	return describe(openapi3.NewStringSchema().WithNullable(), desc)
}

func timestamp(desc string) *openapi3.SchemaRef {
	return describe(openapi3.NewDateTimeSchema().WithNullable(), desc)
}

func enumStr(desc string, values ...string) *openapi3.SchemaRef {
	enum := make([]any, len(values))
	for i, v := range values {
		enum[i] = v
	}
	return describe(openapi3.NewStringSchema().WithEnum(enum...), desc)
}

func integer(desc string) *openapi3.SchemaRef { return describe(openapi3.NewIntegerSchema(), desc) }

func boolean(desc string, def bool) *openapi3.SchemaRef {
	return describe(openapi3.NewBoolSchema().WithDefault(def), desc)
}

// anyValue accepts any JSON value.
func anyValue(desc string) *openapi3.SchemaRef { return describe(&openapi3.Schema{}, desc) }

// freeObject is an object with arbitrary keys.
func freeObject(desc string) *openapi3.SchemaRef { return describe(openapi3.NewObjectSchema(), desc) }

func arrayOf(desc string, items *openapi3.SchemaRef) *openapi3.SchemaRef {
	s := openapi3.NewArraySchema()
	s.Items = items
	return describe(s, desc)
}

func mapOf(desc string, values *openapi3.SchemaRef) *openapi3.SchemaRef {
	s := openapi3.NewObjectSchema()
	s.AdditionalProperties = openapi3.AdditionalProperties{Schema: values}
	return describe(s, desc)
}

// object lists known properties and leaves additionalProperties unset.
func object(desc string, fields ...field) *openapi3.SchemaRef {
	s := openapi3.NewObjectSchema()
	for _, f := range fields {
		s.Properties[f.name] = f.schema
		if f.required {
			s.Required = append(s.Required, f.name)
		}
	}
	return describe(s, desc)
}

// openObject is an object that explicitly allows properties beyond those listed.
func openObject(desc string, fields ...field) *openapi3.SchemaRef {
	s := object(desc, fields...)
	s.Value.WithAnyAdditionalProperties()
	return s
}

// strictObject is an object that rejects properties beyond those listed.
func strictObject(desc string, fields ...field) *openapi3.SchemaRef {
	s := object(desc, fields...)
	s.Value.WithoutAdditionalProperties()
	return s
}

// pageOf is a page of a paged list: its items under name, and the cursor of
// the next page.
func pageOf(name string, item *openapi3.SchemaRef) *openapi3.SchemaRef {
	return object("", req(name, arrayOf("", item)),
		req("nextCursor", nullableStr("Where the next page starts; null on the last.")))
}
