package a2a

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/harnest/harnest/store"
)

// The wire shapes of push notification configs. Requests are read
// leniently, in every shape clients send: the 1.0 flattened
// TaskPushNotificationConfig {taskId, id, url, token, authentication:
// {scheme, credentials}}, the 0.3 {taskId, pushNotificationConfig: {id,
// url, token, authentication: {schemes, credentials}}}, and the 0.3 proto
// {parent, configId, config: {name, pushNotificationConfig}}, with proto
// field names too. Answers are written in the version's shape.

// pushAuthIn is an authentication in either version's shape.
type pushAuthIn struct {
	Scheme      string   `json:"scheme"`
	Schemes     []string `json:"schemes"`
	Credentials string   `json:"credentials"`
}

// pushIn is a config, or a request that holds one, in any shape.
type pushIn struct {
	TaskID                 string          `json:"taskId"`
	ID                     string          `json:"id"`
	ConfigID               string          `json:"configId"`
	PushNotificationConfig *pushIn         `json:"pushNotificationConfig"`
	Config                 *pushIn         `json:"config"`
	Name                   string          `json:"name"`   // 0.3 proto: tasks/{task}/pushNotificationConfigs/{id}
	Parent                 string          `json:"parent"` // 0.3 proto: tasks/{task}
	URL                    string          `json:"url"`
	Token                  string          `json:"token"`
	Authentication         *pushAuthIn     `json:"authentication"`
	PageSize               *int            `json:"pageSize"`
	PageToken              string          `json:"pageToken"`
	PushNotificationCfgID  string          `json:"pushNotificationConfigId"`
	Metadata               json.RawMessage `json:"metadata"`
}

// pushRequest is a push config request as every binding reads it.
type pushRequest struct {
	TaskID    string
	Config    store.PushConfig
	PageSize  int
	PageToken string
}

// namePart reads the segment after key in a proto resource name
// ("tasks/t1/pushNotificationConfigs/c1").
func namePart(name, key string) string {
	parts := strings.Split(name, "/")
	for i := 0; i+1 < len(parts); i++ {
		if parts[i] == key {
			return parts[i+1]
		}
	}
	return ""
}

// flatten merges the nested shapes into one request.
func (p *pushIn) flatten() pushRequest {
	var r pushRequest
	var walk func(q *pushIn)
	walk = func(q *pushIn) {
		if q == nil {
			return
		}
		first := func(dst *string, vals ...string) {
			for _, v := range vals {
				if *dst == "" && v != "" {
					*dst = v
				}
			}
		}
		first(&r.TaskID, q.TaskID, namePart(q.Parent, "tasks"), namePart(q.Name, "tasks"))
		first(&r.Config.ID, q.PushNotificationCfgID, q.ConfigID, namePart(q.Name, "pushNotificationConfigs"))
		first(&r.Config.URL, q.URL)
		first(&r.Config.Token, q.Token)
		if a := q.Authentication; a != nil {
			scheme := a.Scheme
			if scheme == "" && len(a.Schemes) > 0 {
				scheme = a.Schemes[0]
			}
			first(&r.Config.AuthScheme, scheme)
			first(&r.Config.AuthCredentials, a.Credentials)
		}
		if q.PageSize != nil && r.PageSize == 0 {
			r.PageSize = *q.PageSize
		}
		first(&r.PageToken, q.PageToken)
		walk(q.Config)
		walk(q.PushNotificationConfig)
		// A config's own id comes after the request's configId.
		first(&r.Config.ID, q.ID)
	}
	walk(p)
	return r
}

// decodePush reads any push config request; idIsTask says that a bare
// "id" names the task (0.3 get, list and delete params are {id,
// pushNotificationConfigId}).
func decodePush(raw json.RawMessage, idIsTask bool) (pushRequest, error) {
	var p pushIn
	if err := decodeParams(raw, &p, "a push notification config request", false); err != nil {
		return pushRequest{}, err
	}
	if idIsTask && p.TaskID == "" {
		p.TaskID, p.ID = p.ID, ""
	}
	r := p.flatten()
	if len(r.TaskID) > maxIDLength {
		return r, invalidf("taskId is longer than %d characters", maxIDLength)
	}
	return r, nil
}

// decodeSendPush reads the push config a send may carry in its
// configuration (1.0 taskPushNotificationConfig, 0.3
// pushNotificationConfig, 0.3 proto pushNotification); nil without one.
func decodeSendPush(raw json.RawMessage, version string) (*store.PushConfig, error) {
	if !bytes.Contains(raw, []byte("ush")) { // every spelling of the three names holds it; most sends have none
		return nil, nil
	}
	var p struct { // declared after the check: it is allocated only here
		Configuration *struct {
			Task  *pushIn `json:"taskPushNotificationConfig"`
			Push  *pushIn `json:"pushNotificationConfig"`
			Proto *pushIn `json:"pushNotification"`
		} `json:"configuration"`
	}
	if isNull(raw) || json.Unmarshal(camelKeys(raw), &p) != nil || p.Configuration == nil {
		return nil, nil // the send's own decoder reports a malformed body
	}
	in := p.Configuration.Task
	for _, alt := range []*pushIn{p.Configuration.Push, p.Configuration.Proto} {
		if in == nil {
			in = alt
		}
	}
	if in == nil {
		return nil, nil
	}
	c := in.flatten().Config
	c.Protocol = version
	return &c, nil
}

// ---- answers ----

type pushAuth10 struct {
	Scheme      string `json:"scheme"`
	Credentials string `json:"credentials,omitempty"`
}

// pushConfig10 is a 1.0 TaskPushNotificationConfig.
type pushConfig10 struct {
	ID             string      `json:"id"`
	TaskID         string      `json:"taskId"`
	URL            string      `json:"url"`
	Token          string      `json:"token,omitempty"`
	Authentication *pushAuth10 `json:"authentication,omitempty"`
}

type pushAuth03 struct {
	Schemes     []string `json:"schemes"`
	Credentials string   `json:"credentials,omitempty"`
}

type pushBody03 struct {
	ID             string      `json:"id"`
	URL            string      `json:"url"`
	Token          string      `json:"token,omitempty"`
	Authentication *pushAuth03 `json:"authentication,omitempty"`
}

// pushConfig03 is a 0.3 TaskPushNotificationConfig (JSON-RPC).
type pushConfig03 struct {
	TaskID                 string     `json:"taskId"`
	PushNotificationConfig pushBody03 `json:"pushNotificationConfig"`
}

// pushConfigP is the 0.3 proto TaskPushNotificationConfig (HTTP+JSON).
type pushConfigP struct {
	Name                   string     `json:"name"`
	PushNotificationConfig pushBody03 `json:"pushNotificationConfig"`
}

func push10Of(taskID string, c store.PushConfig) pushConfig10 {
	out := pushConfig10{ID: c.ID, TaskID: taskID, URL: c.URL, Token: c.Token}
	if c.AuthScheme != "" {
		out.Authentication = &pushAuth10{Scheme: c.AuthScheme, Credentials: c.AuthCredentials}
	}
	return out
}

func push03Body(c store.PushConfig) pushBody03 {
	out := pushBody03{ID: c.ID, URL: c.URL, Token: c.Token}
	if c.AuthScheme != "" {
		out.Authentication = &pushAuth03{Schemes: []string{c.AuthScheme}, Credentials: c.AuthCredentials}
	}
	return out
}

// pushAnswer writes a config in the shape of a version and binding.
func pushAnswer(version string, rest bool, taskID string, c store.PushConfig) any {
	switch {
	case version != v03:
		return push10Of(taskID, c)
	case rest:
		return pushConfigP{Name: "tasks/" + taskID + "/pushNotificationConfigs/" + c.ID, PushNotificationConfig: push03Body(c)}
	}
	return pushConfig03{TaskID: taskID, PushNotificationConfig: push03Body(c)}
}

// pushListAnswer writes a page of configs: 1.0 and 0.3 HTTP+JSON
// {configs, nextPageToken}, 0.3 JSON-RPC an array.
func pushListAnswer(version string, rest bool, taskID string, cs []store.PushConfig, next string) any {
	items := make([]any, len(cs))
	for i, c := range cs {
		items[i] = pushAnswer(version, rest, taskID, c)
	}
	if version == v03 && !rest {
		return items
	}
	return struct {
		Configs       []any  `json:"configs"`
		NextPageToken string `json:"nextPageToken"`
	}{items, next}
}
