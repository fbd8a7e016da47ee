package logging

import (
	"log"
	"log/slog"
)

// RouteStandardLog sends what libraries write through the standard log
// package (log.Printf and friends, and loggers built on log.Default) to l
// as records at level, so that the service's output stays JSON. Each
// write becomes one record; the message keeps its text without log's
// date prefix.
func RouteStandardLog(l *slog.Logger, level slog.Level) {
	log.SetFlags(0)
	log.SetPrefix("")
	log.SetOutput(slog.NewLogLogger(l.Handler(), level).Writer())
}
