// Package testenv decides what a test does when something it needs from
// outside the repository — the QMSum data, a redis-server binary — is
// missing: skip with a message on a developer's machine, fail in CI.
//
// CI (.ci/run) sets MITHUB_REQUIRE_DATA=1, so nothing it runs can skip for
// want of data or tools. Only tests import this package.
package testenv

import (
	"fmt"
	"os"
	"testing"
)

// RequireEnv is the variable that turns a missing requirement from a skip
// into a failure.
const RequireEnv = "MITHUB_REQUIRE_DATA"

// Required reports whether missing data or tools fail tests
// (MITHUB_REQUIRE_DATA=1) instead of skipping them.
func Required() bool { return os.Getenv(RequireEnv) == "1" }

// Missing ends the test because something it needs is absent: it fails
// under MITHUB_REQUIRE_DATA=1 and skips otherwise, with the message either
// way.
func Missing(tb testing.TB, format string, args ...any) {
	tb.Helper()
	msg := fmt.Sprintf(format, args...)
	if Required() {
		tb.Fatalf("%s (%s=1: required)", msg, RequireEnv)
	}
	tb.Skipf("%s (skipped; %s=1 makes this a failure)", msg, RequireEnv)
}
