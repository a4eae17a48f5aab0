// Package skills publishes the agent card's skills as Agent Skills files
// (the open SKILL.md format: YAML front matter with name and description,
// then Markdown instructions), so that a user can load them into an
// assistant that imports skills. Each file tells the assistant how to reach
// this agent: its A2A card, its /mcp tool when that is served, and the
// neutral POST /responses call.
//
// GET /skills lists them ({"skills":[{"id","name","description","url"}]});
// GET /skills/{id}/SKILL.md serves one as text/markdown. Both are public,
// like the card they are generated from, once, when the routes are
// registered.
package skills
