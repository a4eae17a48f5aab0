package deploy_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/harnest/harnest/config"
)

// manifest is the part of a Kubernetes object the test reads.
type manifest struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name   string            `yaml:"name"`
		Labels map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Spec struct {
		Replicas     int `yaml:"replicas"`
		MinAvailable int `yaml:"minAvailable"`
		Selector     struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"selector"`
		Template struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec struct {
				TerminationGracePeriodSeconds int         `yaml:"terminationGracePeriodSeconds"`
				Containers                    []container `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
		Ports []struct {
			Name       string `yaml:"name"`
			Port       int    `yaml:"port"`
			TargetPort string `yaml:"targetPort"`
		} `yaml:"ports"`
	} `yaml:"spec"`
	ServiceSelector map[string]string `yaml:"-"`
	Data            map[string]string `yaml:"data"`
}

type container struct {
	Name    string   `yaml:"name"`
	Command []string `yaml:"command"`
	Args    []string `yaml:"args"`
	Ports   []struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
	} `yaml:"ports"`
	Env []struct {
		Name  string `yaml:"name"`
		Value string `yaml:"value"`
	} `yaml:"env"`
	LivenessProbe  probe `yaml:"livenessProbe"`
	ReadinessProbe probe `yaml:"readinessProbe"`
}

type probe struct {
	HTTPGet struct {
		Path string `yaml:"path"`
		Port string `yaml:"port"`
	} `yaml:"httpGet"`
}

// manifests reads every object of deploy/kubernetes, by kind and name.
func manifests(t *testing.T) map[string]manifest {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("kubernetes", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	out := map[string]manifest{}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(b))
		for {
			var node yaml.Node
			if err := dec.Decode(&node); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			var m manifest
			if err := node.Decode(&m); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			var sel struct {
				Spec struct {
					Selector map[string]any `yaml:"selector"`
				} `yaml:"spec"`
			}
			_ = node.Decode(&sel)
			if m.Kind == "Service" {
				m.ServiceSelector = map[string]string{}
				for k, v := range sel.Spec.Selector {
					m.ServiceSelector[k], _ = v.(string)
				}
			}
			if m.Kind == "" {
				continue // the kustomization
			}
			out[m.Kind+"/"+m.Metadata.Name] = m
		}
	}
	return out
}

// flagValue is the value after --name in args.
func flagValue(args []string, name string) string {
	i := slices.Index(args, "--"+name)
	if i < 0 || i+1 >= len(args) {
		return ""
	}
	return args[i+1]
}

func TestManifestsAgree(t *testing.T) {
	all := manifests(t)
	dep, ok := all["Deployment/harnest"]
	if !ok {
		t.Fatalf("no Deployment/harnest among %d objects", len(all))
	}
	if dep.Spec.Replicas != 3 {
		t.Errorf("replicas %d, want 3", dep.Spec.Replicas)
	}
	pod := dep.Spec.Template
	if len(pod.Spec.Containers) != 1 {
		t.Fatalf("%d containers", len(pod.Spec.Containers))
	}
	c := pod.Spec.Containers[0]
	args := append(append([]string(nil), c.Command...), c.Args...)
	port := flagValue(args, "port")
	if len(c.Ports) != 1 || c.Ports[0].Name != "http" || port == "" || jsonInt(port) != c.Ports[0].ContainerPort {
		t.Errorf("--port %q and containerPort %+v disagree", port, c.Ports)
	}
	for _, p := range []struct {
		name string
		pr   probe
		path string
	}{{"liveness", c.LivenessProbe, "/healthz"}, {"readiness", c.ReadinessProbe, "/readyz"}} {
		if p.pr.HTTPGet.Path != p.path || p.pr.HTTPGet.Port != "http" {
			t.Errorf("%s probe %+v, want %s on port http", p.name, p.pr.HTTPGet, p.path)
		}
	}
	grace, err := time.ParseDuration(flagValue(args, "shutdown-grace"))
	drain, err2 := time.ParseDuration(flagValue(args, "drain-delay"))
	if err != nil || err2 != nil || time.Duration(pod.Spec.TerminationGracePeriodSeconds)*time.Second <= drain+grace+5*time.Second {
		t.Errorf("terminationGracePeriodSeconds %d must exceed --drain-delay %v plus --shutdown-grace %v plus the final 5 s (%v, %v)",
			pod.Spec.TerminationGracePeriodSeconds, drain, grace, err, err2)
	}
	labels := pod.Metadata.Labels
	if !sameLabels(dep.Spec.Selector.MatchLabels, labels) {
		t.Errorf("selector %v does not match the pod labels %v", dep.Spec.Selector.MatchLabels, labels)
	}
	pdb := all["PodDisruptionBudget/harnest"]
	if !sameLabels(pdb.Spec.Selector.MatchLabels, labels) || pdb.Spec.MinAvailable < 1 || pdb.Spec.MinAvailable >= dep.Spec.Replicas {
		t.Errorf("disruption budget %+v does not fit the deployment", pdb.Spec)
	}
	svc := all["Service/harnest"]
	if !sameLabels(svc.ServiceSelector, labels) || len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort != "http" {
		t.Errorf("service %+v does not reach the pods", svc.Spec)
	}
	// The Redis URL names the Redis service and its port.
	redisSvc := all["Service/harnest-redis"]
	var redisURL string
	for _, e := range c.Env {
		if e.Name == "HARNEST_REDIS_URL" {
			redisURL = e.Value
		}
	}
	if len(redisSvc.Spec.Ports) != 1 || redisURL != "redis://"+redisSvc.Metadata.Name+":"+itoa(redisSvc.Spec.Ports[0].Port)+"/0" {
		t.Errorf("HARNEST_REDIS_URL %q does not name the Redis service %+v", redisURL, redisSvc.Spec.Ports)
	}
	// Every flag is one the binary has.
	serveSource, err := os.ReadFile(filepath.Join("..", "cmd", "harnest", "serve.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range args {
		if name, ok := strings.CutPrefix(a, "--"); ok && !bytes.Contains(serveSource, []byte(`("`+name+`"`)) {
			t.Errorf("harnest serve has no flag --%s", name)
		}
	}
	if args[0] != "/harnest" || args[1] != "serve" || args[2] != "/agent" {
		t.Errorf("the container runs %v, want /harnest serve /agent ...", args)
	}

	// The agent folder of the ConfigMap loads, and listens where the pod
	// expects it.
	dir := t.TempDir()
	for name, content := range all["ConfigMap/harnest-agent"].Data {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"HARNEST_TOKEN": "a-secret-token", "HARNEST_REDIS_URL": redisURL}
	f, err := config.LoadWithEnv(dir, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatalf("the ConfigMap's agent folder: %v", err)
	}
	if h := f.Config.Server.HTTP; h.Port != c.Ports[0].ContainerPort || !h.AllowRemote {
		t.Errorf("the folder listens on %+v", h)
	}
	if !strings.Contains(string(mustRead(t, filepath.Join("kubernetes", "deployment.yaml"))), "{name: agent, mountPath: /agent, readOnly: true}") {
		t.Error("the agent folder is not mounted read-only at /agent")
	}

	// The image runs the same command line, exposes the same port, as a
	// non-root user, with a static binary.
	docker := string(mustRead(t, filepath.Join("..", "Dockerfile")))
	entry := regexp.MustCompile(`(?m)^ENTRYPOINT (\[.*\])$`).FindStringSubmatch(docker)
	var entrypoint []string
	if entry == nil || json.Unmarshal([]byte(entry[1]), &entrypoint) != nil || !slices.Equal(entrypoint, args) {
		t.Errorf("Dockerfile ENTRYPOINT %v, want the Deployment's %v", entrypoint, args)
	}
	for _, want := range []string{"EXPOSE " + port, "CGO_ENABLED=0", "USER nonroot", "FROM gcr.io/distroless/static"} {
		if !strings.Contains(docker, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
}

func sameLabels(a, b map[string]string) bool {
	if len(a) == 0 {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func jsonInt(s string) int {
	var n int
	_ = json.Unmarshal([]byte(s), &n)
	return n
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
