// Package a2aremote is the a2a backend: a remote A2A agent that answers the
// turns, reached through its agent card.
package a2aremote
