// Package console is agent-api's web console: plain HTML, CSS and ES
// modules embedded in the binary and served under /console/, with no build
// step and no server-side rendering. The console talks to the /v1 API with
// the bearer key the user signs in with (kept in sessionStorage).
package console
