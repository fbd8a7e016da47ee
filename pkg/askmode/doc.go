// Package askmode names the kinds of question a meeting can be asked
// (docs/architecture.md §2.2): an answer from the evidence, or a catch-up
// on a period of the meeting. It is the one list of modes the HTTP API,
// its client, the MCP tools and the realtime bot share; it imports
// nothing of the project, so any of them can depend on it.
package askmode
