package config

import (
	"cmp"
	"encoding/base64"
	"regexp"
	"strings"

	"github.com/harnest/harnest/internal/jsontemplate"
)

// Trigger schemes: how a trigger's deliveries are signed.
const (
	// TriggerStandardWebhooks is Standard Webhooks: webhook-id,
	// webhook-timestamp and webhook-signature ("v1,<base64 HMAC-SHA256>"),
	// with a secret "whsec_<base64>".
	TriggerStandardWebhooks = "standardWebhooks"
	// TriggerGitHub is GitHub's X-Hub-Signature-256 ("sha256=<hex>") with
	// X-GitHub-Delivery as the delivery ID.
	TriggerGitHub = "github"
)

// Trigger is one named inbound trigger (server.triggers.<name>): a signed
// webhook at POST /triggers/<name> that starts a turn, or answers a
// waiting one (package trigger).
type Trigger struct {
	// Scheme is how deliveries are signed: standardWebhooks (default) or
	// github.
	Scheme string `yaml:"scheme"`
	// SecretEnv names the environment variable that holds the signing
	// secret; the secret is never written in the file.
	SecretEnv string `yaml:"secretEnv"`
	// Secret is the value of SecretEnv, read when the folder is loaded.
	Secret string `yaml:"-" json:"-"`
	// User is the user the trigger's turns run as and whose waits it may
	// answer (default: the anonymous user).
	User string `yaml:"user"`
	// ToleranceSeconds is how far a delivery's webhook-timestamp may be
	// from now, in either direction (1..86400, default 300).
	ToleranceSeconds int `yaml:"toleranceSeconds"`
	// RememberSeconds is how long a delivery ID is remembered, so that a
	// replay is refused (at least twice the tolerance, at most 30 days;
	// default 86400). GitHub's deliveries carry no timestamp: only this
	// memory refuses their replays.
	RememberSeconds int `yaml:"rememberSeconds"`
	// Input is the turn's input: a template over JSON pointers into the
	// payload, such as "New issue {/issue/title}".
	Input string `yaml:"input"`
	// Session is the session key: a template whose text names the session
	// the turns run in (one session per distinct key); empty, each
	// delivery starts a new session.
	Session string `yaml:"session"`
	// OnBusy is what to do when the session is busy (as spec.onBusy;
	// default the agent's).
	OnBusy string `yaml:"onBusy"`
	// Answer, when set, lets a delivery answer a waiting turn instead.
	Answer *TriggerAnswer `yaml:"answer"`
}

// TriggerAnswer says where a payload names a wait and its answer: JSON
// pointers into the payload.
type TriggerAnswer struct {
	// WaitID points at the approval's or client tool request's ID; a
	// payload without it starts a turn (when Input is set).
	WaitID string `yaml:"waitId"`
	// Approved points at the decision of an approval: true or false, or
	// "approve"/"approved" or "deny"/"denied".
	Approved string `yaml:"approved"`
	// Output points at a client tool's output (any JSON value).
	Output string `yaml:"output"`
}

// Defaults of a trigger.
const (
	DefaultTriggerToleranceSeconds = 300
	DefaultTriggerRememberSeconds  = 86400
	maxTriggerRememberSeconds      = 30 * 86400
)

var triggerNamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,62}$`)

func applyTriggerDefaults(ts map[string]Trigger) {
	for name, t := range ts {
		t.Scheme = cmp.Or(t.Scheme, TriggerStandardWebhooks)
		t.ToleranceSeconds = cmp.Or(t.ToleranceSeconds, DefaultTriggerToleranceSeconds)
		t.RememberSeconds = cmp.Or(t.RememberSeconds, max(DefaultTriggerRememberSeconds, 2*t.ToleranceSeconds))
		ts[name] = t
	}
}

// triggers checks server.triggers and reads each secret from its
// variable (never shown in a message).
func (v *validator) triggers(ts map[string]Trigger) {
	for name, t := range ts {
		at := joinPath("server.triggers", name)
		if !triggerNamePattern.MatchString(name) {
			v.problem(at, "a trigger's name is 1 to 63 lowercase letters, digits, - and _, starting with a letter or digit (it is the path /triggers/<name>)")
		}
		switch t.Scheme {
		case "", TriggerStandardWebhooks, TriggerGitHub:
		default:
			v.problem(at+".scheme", "must be standardWebhooks or github, got %s", v.show(at+".scheme", t.Scheme))
		}
		t.Secret = v.triggerSecret(at, t)
		ts[name] = t
		tolerance := t.ToleranceSeconds
		if v.d.set[at+".toleranceSeconds"] && (tolerance < 1 || tolerance > 86400) {
			v.problem(at+".toleranceSeconds", "must be between 1 and 86400")
		}
		if tolerance == 0 {
			tolerance = DefaultTriggerToleranceSeconds
		}
		if v.d.set[at+".rememberSeconds"] && (t.RememberSeconds < 2*tolerance || t.RememberSeconds > maxTriggerRememberSeconds) {
			v.problem(at+".rememberSeconds", "must be at least twice toleranceSeconds (%d) and at most %d (30 days)", 2*tolerance, maxTriggerRememberSeconds)
		}
		v.template(at+".input", t.Input)
		v.template(at+".session", t.Session)
		switch t.OnBusy {
		case "", "reject", "enqueue", "interrupt", "rollback":
		default:
			v.problem(at+".onBusy", "must be reject, enqueue, interrupt or rollback, got %s", v.show(at+".onBusy", t.OnBusy))
		}
		if t.Answer == nil && strings.TrimSpace(t.Input) == "" {
			v.problem(at, "set input (the turn a delivery starts), answer (the wait it answers), or both")
		}
		if a := t.Answer; a != nil {
			v.triggerAnswer(at+".answer", *a)
		}
	}
}

// triggerSecret reads the secret named by secretEnv and checks its form.
func (v *validator) triggerSecret(at string, t Trigger) string {
	name := t.SecretEnv
	if name == "" {
		v.problem(at+".secretEnv", "required: the environment variable that holds the signing secret (the secret is never written in config.yaml)")
		return ""
	}
	if !envNamePattern.MatchString(name) {
		v.problem(at+".secretEnv", "must be an environment variable's name, such as GITHUB_WEBHOOK_SECRET")
		return ""
	}
	secret, found := v.d.lookup(name)
	if !found || secret == "" {
		v.problem(at+".secretEnv", "environment variable %s is not set; export the signing secret in it before starting harnest", name)
		return ""
	}
	if t.Scheme != TriggerGitHub {
		if _, err := StandardWebhooksKey(secret); err != nil {
			v.problem(at+".secretEnv", "the value of %s is not a Standard Webhooks secret: whsec_ followed by base64 (the sender shows it)", name)
		}
	}
	return secret
}

// StandardWebhooksKey is the HMAC key of a Standard Webhooks secret: the
// base64 after an optional "whsec_".
func StandardWebhooksKey(secret string) ([]byte, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err == nil && len(key) == 0 {
		err = base64.CorruptInputError(0)
	}
	return key, err
}

func (v *validator) triggerAnswer(at string, a TriggerAnswer) {
	if a.WaitID == "" {
		v.problem(at+".waitId", "required: the JSON pointer to the approval's or client tool request's ID in the payload, such as /approvalId")
	}
	if a.Approved == "" && a.Output == "" {
		v.problem(at, "set approved (the JSON pointer to an approval's decision), output (to a client tool's output), or both")
	}
	for key, p := range map[string]string{"waitId": a.WaitID, "approved": a.Approved, "output": a.Output} {
		if p == "" {
			continue
		}
		if _, err := jsontemplate.ParsePointer(p); err != nil {
			v.problem(at+"."+key, "%v", err)
		}
	}
}

func (v *validator) template(at, text string) {
	if _, err := jsontemplate.Parse(text); err != nil {
		v.problem(at, "not a template: %v", err)
	}
}
