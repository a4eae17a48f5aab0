// Package skills publishes the agent card's skills as Agent Skills files:
// GET /skills lists them, GET /skills/{id}/SKILL.md serves one.
package skills
