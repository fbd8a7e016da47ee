// Package search holds agent-api's search use cases: topics across a
// tenant's meetings (vector and full-text rankings fused by reciprocal
// rank), topics of one meeting, and turns of one meeting. See
// docs/architecture.md, "agent-api".
package search
