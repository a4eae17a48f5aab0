package a2a

import (
	"context"
	"encoding/json"

	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"
)

// grpcService is lf.a2a.v1.A2AService over the handler core: each method
// turns its request into the ProtoJSON the 1.0 decoders read, calls the
// same operation as the JSON-RPC and HTTP+JSON bindings, and turns the
// model back into the generated types (grpc_convert.go). The push
// notification config methods are push_rpc.go's, as on the other
// bindings; the extended card is the one the other bindings serve.
type grpcService struct {
	a2apb.UnimplementedA2AServiceServer
	s *Server
}

// SendMessage implements A2AService.SendMessage.
func (g *grpcService) SendMessage(ctx context.Context, req *a2apb.SendMessageRequest) (*a2apb.SendMessageResponse, error) {
	return unary(req, g.s.decodeSend10WithPush, func(sr sendRequest) (StreamEvent, error) {
		return g.s.sendWithPush(ctx, g.s.principalOf(ctx), sr)
	}, &a2apb.SendMessageResponse{})
}

// SendStreamingMessage implements A2AService.SendStreamingMessage: the
// task first, then its updates, until it ends or waits for input. An
// error before the first event is the call's status.
func (g *grpcService) SendStreamingMessage(req *a2apb.SendMessageRequest, stream grpc.ServerStreamingServer[a2apb.StreamResponse]) error {
	ctx := stream.Context()
	sr, err := decodeProto(req, g.s.decodeSend10WithPush)
	if err != nil {
		return grpcError(err)
	}
	f, err := g.s.openStreamWithPush(ctx, g.s.principalOf(ctx), sr)
	if err != nil {
		return grpcError(err)
	}
	return grpcError(f.each(ctx, func(e StreamEvent) error { return sendEvent(stream, e) }))
}

// GetTask implements A2AService.GetTask.
func (g *grpcService) GetTask(ctx context.Context, req *a2apb.GetTaskRequest) (*a2apb.Task, error) {
	return unary(req, decodeTaskID, func(tp taskIDParams) (Task, error) {
		return g.s.getTask(ctx, g.s.principalOf(ctx), tp.ID, tp.HistoryLength)
	}, &a2apb.Task{})
}

// ListTasks implements A2AService.ListTasks.
func (g *grpcService) ListTasks(ctx context.Context, req *a2apb.ListTasksRequest) (*a2apb.ListTasksResponse, error) {
	return unary(req, decodeList10, func(q listRequest) (listResult, error) {
		return g.s.listTasks(ctx, g.s.principalOf(ctx), q)
	}, &a2apb.ListTasksResponse{})
}

// CancelTask implements A2AService.CancelTask.
func (g *grpcService) CancelTask(ctx context.Context, req *a2apb.CancelTaskRequest) (*a2apb.Task, error) {
	return unary(req, decodeTaskID, func(tp taskIDParams) (Task, error) {
		return g.s.cancelTask(ctx, g.s.principalOf(ctx), tp.ID)
	}, &a2apb.Task{})
}

// SubscribeToTask implements A2AService.SubscribeToTask: the task, then
// its updates from any replica. A finished task is UnsupportedOperation.
func (g *grpcService) SubscribeToTask(req *a2apb.SubscribeToTaskRequest, stream grpc.ServerStreamingServer[a2apb.StreamResponse]) error {
	ctx := stream.Context()
	tp, err := decodeProto(req, decodeTaskID)
	if err != nil {
		return grpcError(err)
	}
	p := g.s.principalOf(ctx)
	m, err := g.s.openSubscription(ctx, p, tp.ID)
	if err != nil {
		return grpcError(err)
	}
	err = g.s.follow(ctx, p, m, func(e StreamEvent) error { return sendEvent(stream, e) })
	if err != nil && ctx.Err() != nil {
		return nil // the client left
	}
	return grpcError(err)
}

// CreateTaskPushNotificationConfig implements
// A2AService.CreateTaskPushNotificationConfig.
func (g *grpcService) CreateTaskPushNotificationConfig(ctx context.Context, req *a2apb.TaskPushNotificationConfig) (*a2apb.TaskPushNotificationConfig, error) {
	return unary(req, decodePushProto, func(r pushRequest) (any, error) {
		if err := g.s.pushEnabled(); err != nil {
			return nil, err
		}
		c, err := g.s.createPushFrom(ctx, g.s.principalOf(ctx), r, v10)
		if err != nil {
			return nil, err
		}
		return push10Of(r.TaskID, c), nil
	}, &a2apb.TaskPushNotificationConfig{})
}

// GetTaskPushNotificationConfig implements
// A2AService.GetTaskPushNotificationConfig.
func (g *grpcService) GetTaskPushNotificationConfig(ctx context.Context, req *a2apb.GetTaskPushNotificationConfigRequest) (*a2apb.TaskPushNotificationConfig, error) {
	return unary(req, decodePushProto, func(r pushRequest) (any, error) {
		c, err := g.s.getPush(ctx, g.s.principalOf(ctx), r.TaskID, r.Config.ID)
		if err != nil {
			return nil, err
		}
		return push10Of(r.TaskID, c), nil
	}, &a2apb.TaskPushNotificationConfig{})
}

// ListTaskPushNotificationConfigs implements
// A2AService.ListTaskPushNotificationConfigs.
func (g *grpcService) ListTaskPushNotificationConfigs(ctx context.Context, req *a2apb.ListTaskPushNotificationConfigsRequest) (*a2apb.ListTaskPushNotificationConfigsResponse, error) {
	return unary(req, decodePushProto, func(r pushRequest) (any, error) {
		cs, next, err := g.s.listPush(ctx, g.s.principalOf(ctx), r.TaskID, r.PageSize, r.PageToken)
		if err != nil {
			return nil, err
		}
		return pushListAnswer(v10, false, r.TaskID, cs, next), nil
	}, &a2apb.ListTaskPushNotificationConfigsResponse{})
}

// DeleteTaskPushNotificationConfig implements
// A2AService.DeleteTaskPushNotificationConfig.
func (g *grpcService) DeleteTaskPushNotificationConfig(ctx context.Context, req *a2apb.DeleteTaskPushNotificationConfigRequest) (*emptypb.Empty, error) {
	r, err := decodeProto(req, decodePushProto)
	if err != nil {
		return nil, grpcError(err)
	}
	if err := g.s.deletePush(ctx, g.s.principalOf(ctx), r.TaskID, r.Config.ID); err != nil {
		return nil, grpcError(err)
	}
	return &emptypb.Empty{}, nil
}

// GetExtendedAgentCard implements A2AService.GetExtendedAgentCard: the
// extended card for an authenticated caller, as the other bindings serve
// it (fields of 0.3 that the 1.0 message has not are left out).
func (g *grpcService) GetExtendedAgentCard(ctx context.Context, _ *a2apb.GetExtendedAgentCardRequest) (*a2apb.AgentCard, error) {
	card, e := g.s.extendedCard(g.s.principalOf(ctx), v10)
	if e != nil {
		return nil, grpcError(e)
	}
	out := &a2apb.AgentCard{}
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(card, out); err != nil {
		return nil, status.Error(codes.Internal, "The extended agent card could not be encoded as lf.a2a.v1 protobuf")
	}
	return out, nil
}

// unary is the shape of the unary methods: the request read as ProtoJSON
// by decode, the operation run on it, its answer encoded into out. An
// error of either step is the call's status.
func unary[P, R any, Out proto.Message](req proto.Message, decode func(json.RawMessage) (P, error), run func(P) (R, error), out Out) (Out, error) {
	var none Out
	p, err := decodeProto(req, decode)
	if err != nil {
		return none, grpcError(err)
	}
	r, err := run(p)
	if err != nil {
		return none, grpcError(err)
	}
	return out, encodeProto(r, out)
}

// sendEvent writes one stream item.
func sendEvent(stream grpc.ServerStreamingServer[a2apb.StreamResponse], e StreamEvent) error {
	out := &a2apb.StreamResponse{}
	if err := encodeProto(e, out); err != nil {
		return err
	}
	return stream.Send(out)
}
