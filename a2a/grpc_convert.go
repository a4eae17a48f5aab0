package a2a

import (
	"encoding/json"
	"errors"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/protoadapt"
	"google.golang.org/protobuf/types/known/durationpb"
)

// The package's model is the ProtoJSON of lf.a2a.v1 (model.go), so the
// gRPC binding converts through it: a request message becomes the JSON the
// 1.0 decoders check (the same validation as the other bindings), and a
// result in the model becomes the generated message by protojson.

// decodeProto reads a request with one of the 1.0 decoders.
func decodeProto[T any](req proto.Message, decode func(json.RawMessage) (T, error)) (T, error) {
	b, err := protojson.Marshal(req)
	if err != nil {
		var zero T
		return zero, errInvalidParams("The request cannot be read as A2A 1.0")
	}
	return decode(b)
}

// encodeProto fills out from a value of the model.
func encodeProto(v any, out proto.Message) error {
	b, err := json.Marshal(v)
	if err == nil {
		err = protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(b, out)
	}
	if err != nil {
		return status.Error(codes.Internal, "The answer could not be encoded as lf.a2a.v1 protobuf")
	}
	return nil
}

// grpcError is an error as a gRPC status: the code the spec's gRPC column
// gives the A2A error, its message, and a google.rpc.ErrorInfo with the
// error's reason (what a2a-go reads to tell the errors apart). A status
// passes through; nil stays nil.
func grpcError(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	var ae *Error
	if !errors.As(err, &ae) {
		ae = asA2A(err)
	}
	st := status.New(grpcCode(ae), ae.Message)
	details := []protoadapt.MessageV1{&errdetails.ErrorInfo{Reason: ae.Reason, Domain: "a2a-protocol.org"}}
	if ae.RetryAfter > 0 {
		details = append(details, &errdetails.RetryInfo{RetryDelay: durationpb.New(time.Duration(retrySeconds(ae.RetryAfter)) * time.Second)})
	}
	if withInfo, err := st.WithDetails(details...); err == nil {
		st = withInfo
	}
	return st.Err()
}

// grpcCode is the gRPC code of an A2A error (spec 1.0 §5.4). Internal
// errors keep the code they carry for HTTP+JSON (UNAVAILABLE,
// RESOURCE_EXHAUSTED and the like). Versions of the spec's table differ:
// some give UNIMPLEMENTED to -32003, -32004 and -32009, others (and
// a2a-go v2 and @a2a-js/sdk 1.3) FAILED_PRECONDITION. a2a-go v2's gRPC
// client reads an error only when both its code and its ErrorInfo reason
// match its own table, so FAILED_PRECONDITION stays. Over HTTP+JSON the
// clients read the reason alone, so there harnest follows the table that
// gives 409 to -32002 and 415 to -32005 (errors.go).
func grpcCode(e *Error) codes.Code {
	switch e.Code {
	case -32001:
		return codes.NotFound
	case -32002, -32003, -32004, -32007, -32008, -32009:
		return codes.FailedPrecondition
	case -32005, -32700, -32600, -32602:
		return codes.InvalidArgument
	case -32601:
		return codes.Unimplemented
	case -32006:
		return codes.Internal
	}
	var c codes.Code
	if e.Status != "" && c.UnmarshalJSON([]byte(`"`+e.Status+`"`)) == nil {
		return c
	}
	return codes.Internal
}
