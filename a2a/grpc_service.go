package a2a

import (
	"context"

	a2apb "github.com/a2aproject/a2a-go/v2/a2apb/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
)

// grpcService is lf.a2a.v1.A2AService over the handler core: each method
// turns its request into the ProtoJSON the 1.0 decoders read, calls the
// same operation as the JSON-RPC and HTTP+JSON bindings, and turns the
// model back into the generated types (grpc_convert.go). The push
// notification config methods answer PushNotificationNotSupported, and
// the extended card UnsupportedOperation, as the other bindings do.
type grpcService struct {
	a2apb.UnimplementedA2AServiceServer
	s *Server
}

// SendMessage implements A2AService.SendMessage.
func (g *grpcService) SendMessage(ctx context.Context, req *a2apb.SendMessageRequest) (*a2apb.SendMessageResponse, error) {
	sr, err := decodeProto(req, decodeSend10)
	if err != nil {
		return nil, grpcError(err)
	}
	res, err := g.s.send(ctx, g.s.principalOf(ctx), sr)
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
	sr, err := decodeProto(req, decodeSend10)
	if err != nil {
		return grpcError(err)
	}
	f, err := g.s.openStream(ctx, g.s.principalOf(ctx), sr)
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
// A2AService.CreateTaskPushNotificationConfig: not supported yet.
func (g *grpcService) CreateTaskPushNotificationConfig(context.Context, *a2apb.TaskPushNotificationConfig) (*a2apb.TaskPushNotificationConfig, error) {
	return nil, grpcError(errPushNotSupported())
}

// GetTaskPushNotificationConfig implements
// A2AService.GetTaskPushNotificationConfig: not supported yet.
func (g *grpcService) GetTaskPushNotificationConfig(context.Context, *a2apb.GetTaskPushNotificationConfigRequest) (*a2apb.TaskPushNotificationConfig, error) {
	return nil, grpcError(errPushNotSupported())
}

// ListTaskPushNotificationConfigs implements
// A2AService.ListTaskPushNotificationConfigs: not supported yet.
func (g *grpcService) ListTaskPushNotificationConfigs(context.Context, *a2apb.ListTaskPushNotificationConfigsRequest) (*a2apb.ListTaskPushNotificationConfigsResponse, error) {
	return nil, grpcError(errPushNotSupported())
}

// DeleteTaskPushNotificationConfig implements
// A2AService.DeleteTaskPushNotificationConfig: not supported yet.
func (g *grpcService) DeleteTaskPushNotificationConfig(context.Context, *a2apb.DeleteTaskPushNotificationConfigRequest) (*emptypb.Empty, error) {
	return nil, grpcError(errPushNotSupported())
}

// GetExtendedAgentCard implements A2AService.GetExtendedAgentCard: this
// binding declares no extended card yet.
func (g *grpcService) GetExtendedAgentCard(context.Context, *a2apb.GetExtendedAgentCardRequest) (*a2apb.AgentCard, error) {
	return nil, grpcError(errUnsupported("This agent declares no extended agent card"))
}

// sendEvent writes one stream item.
func sendEvent(stream grpc.ServerStreamingServer[a2apb.StreamResponse], e StreamEvent) error {
	out := &a2apb.StreamResponse{}
	if err := encodeProto(e, out); err != nil {
		return err
	}
	return stream.Send(out)
}
