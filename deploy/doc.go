// Package deploy holds what runs harnest in production: the Kubernetes
// manifests under kubernetes/ (three replicas on one Redis, probes, a
// disruption budget) and, at the repository's root, the Dockerfile. Its
// test checks that they agree with each other and with the binary.
package deploy
