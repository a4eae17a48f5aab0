// Package docs holds harnest's documentation (the Markdown files beside
// this one) and its tests: that configuration.md lists exactly the keys of
// config.yaml.example, that every shell block of README.md and docs/*.md is
// run verbatim or names what covers it, and that relative links resolve.
// It has no code of its own.
package docs
