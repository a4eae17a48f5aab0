package a2a

import (
	"context"

	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
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
	sr, err := decodeProto(req, g.s.decodeSend10WithPush)
	if err != nil {
		return nil, grpcError(err)
	}
	res, err := g.s.sendWithPush(ctx, g.s.principalOf(ctx), sr)
	if err != nil {
		return nil, grpcError(err)
	}
	out := &a2apb.SendMessageResponse{}
	return out, encodeProto(res, out)
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
	tp, err := decodeProto(req, decodeTaskID)
	if err != nil {
		return nil, grpcError(err)
	}
	t, err := g.s.getTask(ctx, g.s.principalOf(ctx), tp.ID, tp.HistoryLength)
	if err != nil {
		return nil, grpcError(err)
	}
	out := &a2apb.Task{}
	return out, encodeProto(t, out)
}

// ListTasks implements A2AService.ListTasks.
func (g *grpcService) ListTasks(ctx context.Context, req *a2apb.ListTasksRequest) (*a2apb.ListTasksResponse, error) {
	q, err := decodeProto(req, decodeList10)
	if err != nil {
		return nil, grpcError(err)
	}
	l, err := g.s.listTasks(ctx, g.s.principalOf(ctx), q)
	if err != nil {
		return nil, grpcError(err)
	}
	out := &a2apb.ListTasksResponse{}
	return out, encodeProto(l, out)
}

// CancelTask implements A2AService.CancelTask.
func (g *grpcService) CancelTask(ctx context.Context, req *a2apb.CancelTaskRequest) (*a2apb.Task, error) {
	tp, err := decodeProto(req, decodeTaskID)
	if err != nil {
		return nil, grpcError(err)
	}
	t, err := g.s.cancelTask(ctx, g.s.principalOf(ctx), tp.ID)
	if err != nil {
		return nil, grpcError(err)
	}
	out := &a2apb.Task{}
	return out, encodeProto(t, out)
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
	r, err := decodeProto(req, decodePushProto)
	if err != nil {
		return nil, grpcError(err)
	}
	if err := g.s.pushEnabled(); err != nil {
		return nil, grpcError(err)
	}
	c, err := g.s.createPushFrom(ctx, g.s.principalOf(ctx), r, v10)
	if err != nil {
		return nil, grpcError(err)
	}
	out := &a2apb.TaskPushNotificationConfig{}
	return out, encodeProto(push10Of(r.TaskID, c), out)
}

// GetTaskPushNotificationConfig implements
// A2AService.GetTaskPushNotificationConfig.
func (g *grpcService) GetTaskPushNotificationConfig(ctx context.Context, req *a2apb.GetTaskPushNotificationConfigRequest) (*a2apb.TaskPushNotificationConfig, error) {
	r, err := decodeProto(req, decodePushProto)
	if err != nil {
		return nil, grpcError(err)
	}
	c, err := g.s.getPush(ctx, g.s.principalOf(ctx), r.TaskID, r.Config.ID)
	if err != nil {
		return nil, grpcError(err)
	}
	out := &a2apb.TaskPushNotificationConfig{}
	return out, encodeProto(push10Of(r.TaskID, c), out)
}

// ListTaskPushNotificationConfigs implements
// A2AService.ListTaskPushNotificationConfigs.
func (g *grpcService) ListTaskPushNotificationConfigs(ctx context.Context, req *a2apb.ListTaskPushNotificationConfigsRequest) (*a2apb.ListTaskPushNotificationConfigsResponse, error) {
	r, err := decodeProto(req, decodePushProto)
	if err != nil {
		return nil, grpcError(err)
	}
	cs, next, err := g.s.listPush(ctx, g.s.principalOf(ctx), r.TaskID, r.PageSize, r.PageToken)
	if err != nil {
		return nil, grpcError(err)
	}
	out := &a2apb.ListTaskPushNotificationConfigsResponse{}
	return out, encodeProto(pushListAnswer(v10, false, r.TaskID, cs, next), out)
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

// sendEvent writes one stream item.
func sendEvent(stream grpc.ServerStreamingServer[a2apb.StreamResponse], e StreamEvent) error {
	out := &a2apb.StreamResponse{}
	if err := encodeProto(e, out); err != nil {
		return err
	}
	return stream.Send(out)
}
