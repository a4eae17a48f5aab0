package config

import "net/url"

// endpointURL is a key that holds an endpoint's http or https URL, and
// what its problems tell the user.
type endpointURL struct {
	key, value string
	required   string // what a missing URL should be ("the endpoint's base URL, such as ...")
	example    string // an absolute URL the key could hold
	credential string // where credentials go instead of the URL
	appends    string // the path harnest appends; when set, a query or fragment is refused
}

// endpoint checks that e's URL is set, absolute http or https, without
// credentials, and (when harnest appends to it) without a query or
// fragment.
func (v *validator) endpoint(e endpointURL) {
	switch u, err := url.Parse(e.value); {
	case e.value == "":
		v.problem(e.key, "required; give %s", e.required)
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		v.problem(e.key, "must be an absolute http or https URL such as %s, got %s", e.example, v.show(e.key, e.value))
	case u.User != nil:
		v.problem(e.key, "must not hold credentials; %s", e.credential)
	case e.appends != "" && (u.RawQuery != "" || u.Fragment != ""):
		v.problem(e.key, "must not have a query or fragment; harnest appends %s to it", e.appends)
	}
}
