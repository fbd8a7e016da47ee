// Package mcpserver exposes MitHub's memory and meetings to coding and
// chat agents over the Model Context Protocol (docs/architecture.md §7), with
// github.com/modelcontextprotocol/go-sdk.
//
// Tools: memory_should_compress, memory_add_message, memory_get_context,
// memory_search, memory_get_stats (long-conversation memory, pkg/convmemory)
// and meeting_list, meeting_topics, meeting_ask (agent-api's meetings,
// through the Meetings interface: pkg/apiclient over HTTP, or agent-api's
// use cases in-process). Resource: memory://context/current, the compressed
// context of the session's current conversation. Tool inputs are checked
// against their JSON schema (unknown fields are rejected) and then by the
// handlers; a bad input is a tool error whose message says what to fix.
//
// One Server serves one tenant. mithubctl mcp runs it over stdio;
// agent-api serves it as streamable HTTP at /mcp behind bearer-key auth.
package mcpserver
