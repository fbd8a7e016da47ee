// Package load drives agent-api (and through it pr-worker) with many
// concurrent meetings the way live meetings do: each meeting posts one
// final utterance at a fixed interval (QMSum text, some Korean), asks a
// question now and then over SSE and asks for PRs. It records every
// request's latency and outcome per endpoint, samples the services' RSS
// from /proc, and at the end checks completeness: every utterance the API
// acknowledged with a 2xx is stored exactly once, and every PR id it
// returned ends succeeded. Run writes a Markdown report; chaos runs also
// pass a marks file with the fault's start and end, from which the time to
// recover is computed.
package load
