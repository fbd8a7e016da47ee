// Package fakellm is a stand-in for a paid OpenAI-compatible chat server,
// for fault tests: it answers POST /v1/chat/completions (plain or
// streamed) in one of several modes that can be switched while it runs
// (PUT /mode): ok, slow (ok after a delay), timeout (never answers until
// the client gives up), garbage (broken bodies with status 200) and error
// (503). GET /stats counts the requests served in each mode.
package fakellm
