package httpapi

import (
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are agent-api's Prometheus series.
type Metrics struct {
	requests   *prometheus.CounterVec
	duration   *prometheus.HistogramVec
	ingested   prometheus.Counter
	duplicates prometheus.Counter
	CacheHits  prometheus.Counter
	CacheMiss  prometheus.Counter
	CacheEvict prometheus.Counter

	// streamsRefused counts /events streams refused by a cap, by limit
	// (key, tenant, server); openStreams reads the open streams.
	streamsRefused *prometheus.CounterVec
	openStreams    func() int
}

// NewMetrics registers the series on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mithub_http_requests_total", Help: "HTTP requests by route, method and status.",
		}, []string{"route", "method", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "mithub_http_request_duration_seconds", Help: "HTTP request latency by route and method.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"route", "method"}),
		ingested: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mithub_utterances_ingested_total", Help: "Utterances stored by POST utterances.",
		}),
		duplicates: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mithub_utterance_duplicates_total", Help: "Utterances skipped because their segment was already stored.",
		}),
		CacheHits: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mithub_context_cache_hits_total", Help: "Context cache hits.",
		}),
		CacheMiss: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mithub_context_cache_misses_total", Help: "Context cache misses (rebuilt from Postgres).",
		}),
		CacheEvict: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mithub_context_cache_evictions_total", Help: "Contexts dropped by size or idle time.",
		}),
	}
	m.streamsRefused = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "mithub_event_streams_refused_total", Help: "Meeting event streams refused by a cap, by limit (key, tenant, server).",
	}, []string{"limit"})
	open := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "mithub_event_streams_open", Help: "Meeting event streams open on this server.",
	}, func() float64 {
		if m.openStreams == nil {
			return 0
		}
		return float64(m.openStreams())
	})
	reg.MustRegister(m.requests, m.duration, m.ingested, m.duplicates, m.CacheHits, m.CacheMiss, m.CacheEvict,
		m.streamsRefused, open)
	return m
}

// middleware records every request under its route pattern, so ids in
// paths do not explode the label space.
func (m *Metrics) middleware(c *fiber.Ctx) error {
	start := time.Now()
	err := c.Next()
	status := c.Response().StatusCode()
	if err != nil {
		status = classify(err).Status
	}
	route := c.Route().Path
	if status == fiber.StatusNotFound && route == "/" {
		route = "unmatched" // only the global middleware matched
	}
	m.requests.WithLabelValues(route, c.Method(), strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(route, c.Method()).Observe(time.Since(start).Seconds())
	return err
}
