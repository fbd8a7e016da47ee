// Package meetings holds agent-api's meeting use cases: ingesting final
// utterances into a meeting, ending a meeting and recording presence. Any
// edge (HTTP, MCP) calls them in-process with plain values; see
// docs/architecture.md, "agent-api".
package meetings
