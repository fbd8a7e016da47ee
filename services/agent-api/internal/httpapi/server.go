package httpapi

import (
	"context"
	"log/slog"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/gofiber/fiber/v2/middleware/recover"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/mithub/mithub/pkg/convmemory"
	"github.com/mithub/mithub/pkg/health"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/pkg/webhook"
	"github.com/mithub/mithub/services/agent-api/internal/ask"
	"github.com/mithub/mithub/services/agent-api/internal/meetingcache"
	"github.com/mithub/mithub/services/agent-api/internal/meetings"
	"github.com/mithub/mithub/services/agent-api/internal/prs"
	"github.com/mithub/mithub/services/agent-api/internal/search"
)

// Store is the persistence the handlers use.
type Store interface {
	Authenticator
	Ping(ctx context.Context) error
	CreateMeeting(ctx context.Context, tenantID string, m store.NewMeeting) (store.Meeting, error)
	GetMeeting(ctx context.Context, tenantID, id string) (store.Meeting, error)
}

// Deps are the server's collaborators.
type Deps struct {
	Log      *slog.Logger
	Store    Store
	Contexts *meetingcache.Cache
	Metrics  *Metrics
	Registry prometheus.Gatherer
	// Ready lists the dependencies /readyz checks, by name.
	Ready map[string]health.Check
	// BodyLimit in bytes; larger bodies get 413.
	BodyLimit int
	// L1Wait bounds how long GET /context?wait=true waits for topics.
	L1Wait time.Duration
	// Meetings, PRFlow and Search are the use cases the meeting, PR and
	// search routes call; Ask answers questions about meetings. Required.
	Meetings *meetings.Service
	PRFlow   *prs.Service
	Search   *search.Service
	Ask      *ask.Service
	// Memory serves the MCP memory tools (nil: /mcp answers 503).
	Memory *convmemory.Service
	// MemoryBank stores the memory bank; without it the memory-bank
	// routes answer 503.
	MemoryBank MemoryBankStore
	// RateLimit limits each API key's requests (zero: no limit).
	RateLimit RateLimit
	// AuthFailureLimit limits each client IP address's failed
	// authentications (zero: no limit); over it, requests that would
	// query the store get 429.
	AuthFailureLimit RateLimit
	// MeetingChanges, when set, registers a function told of each meeting
	// changed by any process (meetingcache.Cache.OnChange): it wakes that
	// meeting's /events streams at once rather than at the next poll.
	MeetingChanges func(notify func(meetingID string))
	// Streams caps the open /events streams and sets how often they
	// re-check their key (zero fields: the defaults).
	Streams StreamLimits
	// CORSOrigins are the browser origins allowed to call the API (empty:
	// no CORS headers).
	CORSOrigins []string
	// Webhooks stores the tenants' webhooks (nil: the webhook routes
	// answer 503); WebhookConfig checks their targets and rotates secrets.
	Webhooks      WebhookStore
	WebhookConfig webhook.Config
}

// Server holds the handlers' dependencies.
type Server struct {
	Deps
	auth    *authenticator
	limiter *rateLimiter
}

// New builds the Fiber app with every route.
func New(d Deps) *fiber.App {
	s := &Server{Deps: d, auth: newAuthenticator(d.Store, d.AuthFailureLimit), limiter: newRateLimiter(d.RateLimit)}
	app := fiber.New(fiber.Config{
		AppName:               "mithub-agent-api",
		BodyLimit:             d.BodyLimit,
		ErrorHandler:          errorHandler(d.Log),
		DisableStartupMessage: true,
		// Handlers keep strings from params and bodies beyond the request.
		Immutable:      true,
		ReadTimeout:    30 * time.Second,
		IdleTimeout:    120 * time.Second,
		ReadBufferSize: 16 << 10,
	})
	app.Use(requestIDs)
	app.Use(traceRequests)
	app.Use(recover.New(recover.Config{EnableStackTrace: true, StackTraceHandler: func(c *fiber.Ctx, e any) {
		d.Log.Error("panic in handler", "path", c.Path(), "request_id", requestID(c), "panic", e)
	}}))
	app.Use(d.Metrics.middleware)
	if h := newCORS(d.CORSOrigins); h != nil {
		app.Use(h)
	}

	app.Get("/healthz", s.healthz)
	app.Get("/readyz", s.readyz)
	app.Get("/metrics", adaptor.HTTPHandler(promhttp.HandlerFor(d.Registry, promhttp.HandlerOpts{})))
	app.Get("/openapi.json", s.openapi)
	s.consoleRoutes(app)

	v1 := app.Group("/v1", s.auth.middleware, s.limit)
	s.eventRoutes(v1) // first: it hooks the ingest routes below
	v1.Post("/meetings", s.createMeeting)
	v1.Post("/meetings/import", s.importMeeting)
	v1.Get("/meetings", s.listMeetings)
	v1.Get("/meetings/:id", s.getMeeting)
	v1.Post("/meetings/:id/end", s.endMeeting)
	v1.Post("/meetings/:id/utterances", s.postUtterances)
	v1.Post("/meetings/:id/sync", s.syncMeeting)
	v1.Post("/meetings/:id/presence", s.postPresence)
	v1.Get("/meetings/:id/context", s.getContext)
	v1.Get("/meetings/:id/transcript", s.getTranscript)
	v1.Post("/meetings/:id/ask", s.ask)
	v1.Get("/meetings/:id/topics", s.getTopics)
	v1.Get("/meetings/:id/search", s.searchTurns)
	v1.Get("/search", s.search)
	v1.Post("/meetings/:id/generate-pr", s.generatePR)
	v1.Get("/meetings/:id/prs", s.listMeetingPRs)
	v1.Get("/prs/:id", s.getPR)
	v1.Post("/prs/:id/approve", s.approvePR)
	v1.Post("/prs/:id/reject", s.rejectPR)
	v1.Get("/memory-bank/:project", s.getMemoryBank)
	v1.Put("/memory-bank/:project", s.putMemoryBank)
	v1.Get("/memory-bank/:project/:category", s.getMemoryEntry)
	v1.Put("/memory-bank/:project/:category", s.putMemoryEntry)
	s.webhookRoutes(v1)

	app.Post("/mcp", s.auth.middleware, s.limit, s.mcp)
	app.Get("/mcp", s.auth.middleware, s.limit, mcpGet)

	app.Use(func(c *fiber.Ctx) error { return fiber.ErrNotFound })
	return app
}
