package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/mithub/mithub/pkg/meetingctx"
	"github.com/mithub/mithub/pkg/store"
)

// Event stream tuning.
const (
	// eventPollInterval is the fallback poll: rows written by another
	// process or replica, and topics from the background L1 worker, show up
	// within it.
	eventPollInterval = time.Second
	// eventHeartbeat is how often an idle stream sends a comment, which
	// keeps proxies from closing it.
	eventHeartbeat = 15 * time.Second
	// eventMinGap coalesces bursts of ingest notifications.
	eventMinGap = 100 * time.Millisecond
	// eventPage bounds the rows read and held per query, and so a
	// stream's memory.
	eventPage = 200
	// DefaultMaxStreams bounds the open streams per server.
	DefaultMaxStreams = 1000
	// DefaultMaxStreamsPerTenant bounds the open streams of one tenant.
	DefaultMaxStreamsPerTenant = 100
	// DefaultMaxStreamsPerKey bounds the open streams of one API key.
	DefaultMaxStreamsPerKey = 20
	// DefaultKeyRecheck is how often an open stream checks that its key
	// still works.
	DefaultKeyRecheck = 30 * time.Second
	// eventQueryTimeout bounds the reads of one flush.
	eventQueryTimeout = 10 * time.Second
	// eventWriteTimeout drops a client that stops reading.
	eventWriteTimeout = 30 * time.Second
)

// StreamLimits bound the open /events streams and say how often each
// re-checks its key. Zero fields take the defaults.
type StreamLimits struct {
	// PerKey is MITHUB_EVENTS_MAX_PER_KEY (default 20); over it: 429.
	PerKey int
	// PerTenant is MITHUB_EVENTS_MAX_PER_TENANT (default 100); over it: 429.
	PerTenant int
	// Server is MITHUB_EVENTS_MAX_STREAMS (default 1000); over it: 503.
	Server int
	// KeyRecheck is MITHUB_EVENTS_KEY_RECHECK (default 30s): an open stream
	// authenticates its key again this often, bypassing the key cache, and
	// ends when the key no longer works.
	KeyRecheck time.Duration
}

// WithDefaults fills the zero fields.
func (l StreamLimits) WithDefaults() StreamLimits {
	if l.PerKey <= 0 {
		l.PerKey = DefaultMaxStreamsPerKey
	}
	if l.PerTenant <= 0 {
		l.PerTenant = DefaultMaxStreamsPerTenant
	}
	if l.Server <= 0 {
		l.Server = DefaultMaxStreams
	}
	if l.KeyRecheck <= 0 {
		l.KeyRecheck = DefaultKeyRecheck
	}
	return l
}

// Which limit refused a stream; the label of
// mithub_event_streams_refused_total.
const (
	limitKey    = "key"
	limitTenant = "tenant"
	limitServer = "server"
)

// eventHub wakes the event streams of a meeting when turns are stored
// through this server, and counts the open streams per key, per tenant
// and in all.
type eventHub struct {
	limits    StreamLimits
	mu        sync.Mutex
	meetings  map[string]*meetingSignal
	streams   int
	perKey    map[string]int
	perTenant map[string]int
}

// streamOwner is whom a stream counts against.
type streamOwner struct{ key, tenant string }

// meetingSignal is closed and replaced on every notification.
type meetingSignal struct {
	ch   chan struct{}
	refs int
}

func newEventHub(limits StreamLimits) *eventHub {
	return &eventHub{limits: limits.WithDefaults(), meetings: map[string]*meetingSignal{},
		perKey: map[string]int{}, perTenant: map[string]int{}}
}

// join registers a stream of owner on a meeting. It returns the limit
// that refused it ("" when it joined); the key's cap is checked first,
// then the tenant's, then the server's.
func (h *eventHub) join(meetingID string, owner streamOwner) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch {
	case h.perKey[owner.key] >= h.limits.PerKey:
		return limitKey
	case h.perTenant[owner.tenant] >= h.limits.PerTenant:
		return limitTenant
	case h.streams >= h.limits.Server:
		return limitServer
	}
	h.streams++
	h.perKey[owner.key]++
	h.perTenant[owner.tenant]++
	sig := h.meetings[meetingID]
	if sig == nil {
		sig = &meetingSignal{ch: make(chan struct{})}
		h.meetings[meetingID] = sig
	}
	sig.refs++
	return ""
}

func (h *eventHub) leave(meetingID string, owner streamOwner) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.streams--
	if h.perKey[owner.key]--; h.perKey[owner.key] <= 0 {
		delete(h.perKey, owner.key)
	}
	if h.perTenant[owner.tenant]--; h.perTenant[owner.tenant] <= 0 {
		delete(h.perTenant, owner.tenant)
	}
	if sig := h.meetings[meetingID]; sig != nil {
		if sig.refs--; sig.refs == 0 {
			delete(h.meetings, meetingID)
		}
	}
}

// changed returns a channel that the meeting's next notification closes.
// The caller has joined the meeting.
func (h *eventHub) changed(meetingID string) <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.meetings[meetingID].ch
}

func (h *eventHub) notify(meetingID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if sig := h.meetings[meetingID]; sig != nil {
		close(sig.ch)
		sig.ch = make(chan struct{})
	}
}

// notifyAfter runs the route and, when it stored or synced turns, wakes
// the meeting's streams.
func (h *eventHub) notifyAfter(c *fiber.Ctx) error {
	err := c.Next()
	if err == nil && c.Method() == fiber.MethodPost && c.Response().StatusCode() < 300 {
		if id, perr := uuid.Parse(c.Params("id")); perr == nil {
			h.notify(id.String())
		}
	}
	return err
}

// eventRoutes registers the meeting event stream and the hooks on the
// ingest routes that wake it. It must run before those routes are added.
func (s *Server) eventRoutes(r fiber.Router) {
	hub := newEventHub(s.Streams)
	if s.Metrics != nil {
		s.Metrics.openStreams = hub.open
	}
	r.Use("/meetings/:id/utterances", hub.notifyAfter)
	r.Use("/meetings/:id/sync", hub.notifyAfter)
	if s.MeetingChanges != nil {
		s.MeetingChanges(hub.notify)
	}
	r.Get("/meetings/:id/events", s.meetingEvents(hub))
}

type readyEventJSON struct {
	MeetingID string `json:"meeting_id"`
	AfterSeq  int    `json:"after_seq"`
}

type transcriptEventJSON struct {
	Rows []transcriptRowJSON `json:"rows"`
}

type topicsEventJSON struct {
	L1Cursor int                `json:"l1_cursor"`
	Topics   []meetingctx.Topic `json:"topics"`
}

type pendingEventJSON struct {
	// Cursor is the highest seq in the meeting's live context.
	Cursor int `json:"cursor"`
	// L1Cursor is the highest seq covered by a topic, -1 before the first.
	L1Cursor      int  `json:"l1_cursor"`
	PendingTurns  int  `json:"pending_turns"`
	PendingTokens int  `json:"pending_tokens"`
	Busy          bool `json:"busy"`
}

type speakersEventJSON struct {
	Speakers []meetingctx.Speaker `json:"speakers"`
}

// meetingEvents answers GET /v1/meetings/{id}/events[?after_seq=N] with a
// Server-Sent Events stream: ready once, then transcript (new stored rows
// after after_seq, in seq order, id = last seq), meeting (on a status
// change), topics (when the topic list changes), pending and speakers
// (when they change), and error when a read fails (the stream goes on).
// It ends when the client goes away or the server shuts down. The client
// must accept text/event-stream.
func (s *Server) meetingEvents(hub *eventHub) fiber.Handler {
	return func(c *fiber.Ctx) error {
		id, err := meetingIDParam(c)
		if err != nil {
			return err
		}
		after, err := afterSeqQuery(c)
		if err != nil {
			return err
		}
		if !acceptsEventStream(c.Get(fiber.HeaderAccept)) {
			return &apiError{Status: fiber.StatusNotAcceptable, Code: codeNotAcceptable,
				Message: "this route streams Server-Sent Events and does not end: send Accept: text/event-stream"}
		}
		l, err := s.lister()
		if err != nil {
			return err
		}
		tenant := tenantOf(c).ID
		if _, err := s.Store.GetMeeting(c.UserContext(), tenant, id); err != nil {
			return meetingErr(err)
		}
		keyHash, _ := c.Locals(keyHashKey).(string)
		owner := streamOwner{key: keyHash, tenant: tenant}
		if limit := hub.join(id, owner); limit != "" {
			return s.refuseStream(c, hub.limits, limit)
		}
		st := &eventStream{
			s: s, lister: l, log: s.Log.With("meeting_id", id, "request_id", requestID(c)),
			tenantID: tenant, meetingID: id, after: after,
			key: bearerKey(c), recheck: hub.limits.KeyRecheck,
		}
		c.Set(fiber.HeaderContentType, "text/event-stream; charset=utf-8")
		c.Set(fiber.HeaderCacheControl, "no-cache")
		c.Set("X-Accel-Buffering", "no")
		// One stream per connection: when the stream ends, so does the
		// connection, and nothing else is read from it while it runs.
		c.Context().SetConnectionClose()
		shutdown, conn := c.Context().Done(), c.Context().Conn()
		// The writer runs after the handler returns, on its own goroutine.
		c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
			defer hub.leave(id, owner)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				select {
				case <-shutdown:
				case <-closed(conn):
				case <-ctx.Done():
				}
				cancel()
			}()
			st.conn = conn
			st.run(ctx, w, hub)
		})
		return nil
	}
}

// codeNotAcceptable is the error code of a 406.
const codeNotAcceptable = "not_acceptable"

// codeTooManyStreams is the error code of a stream refused by a cap.
const codeTooManyStreams = "too_many_streams"

// refuseStream answers a stream over a cap: 429 for the key's or the
// tenant's, 503 for the server's. It writes the response itself, so the
// refusal is logged once at WARN (not as a server error) and counted.
func (s *Server) refuseStream(c *fiber.Ctx, l StreamLimits, limit string) error {
	status, msg := fiber.StatusTooManyRequests, ""
	switch limit {
	case limitKey:
		msg = fmt.Sprintf("this API key has %d event streams open, its limit; close one first", l.PerKey)
	case limitTenant:
		msg = fmt.Sprintf("this tenant has %d event streams open, its limit; close one first", l.PerTenant)
	default:
		status = fiber.StatusServiceUnavailable
		msg = fmt.Sprintf("the server has %d event streams open, its limit; try again later", l.Server)
	}
	s.Log.Warn("event stream refused", "limit", limit, "tenant_id", tenantOf(c).ID,
		"request_id", requestID(c), "status", status)
	if s.Metrics != nil {
		s.Metrics.streamsRefused.WithLabelValues(limit).Inc()
	}
	c.Set(fiber.HeaderRetryAfter, "5")
	var body errorBody
	body.Error.Code, body.Error.Message = codeTooManyStreams, msg
	return c.Status(status).JSON(body)
}

// open is the number of open streams.
func (h *eventHub) open() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.streams
}

// bearerKey is the request's API key (the authenticator accepted it).
func bearerKey(c *fiber.Ctx) string {
	_, key, _ := strings.Cut(c.Get(fiber.HeaderAuthorization), " ")
	return strings.TrimSpace(key)
}

// acceptsEventStream: the Accept header names text/event-stream, or a
// wildcard that covers it. A client must ask for the endless response;
// without an Accept header it gets a 406 instead of a request that never
// completes.
func acceptsEventStream(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		mt, _, _ := strings.Cut(part, ";")
		switch strings.ToLower(strings.TrimSpace(mt)) {
		case "text/event-stream", "text/*", "*/*":
			return true
		}
	}
	return false
}

// closed returns a channel closed when the client closes the connection
// (or the server does). The stream owns the connection, and the client
// sends nothing on it, so any read result means it is gone.
func closed(conn net.Conn) <-chan struct{} {
	ch := make(chan struct{})
	if conn == nil {
		return ch
	}
	go func() {
		defer close(ch)
		// The request's read deadline must not end the stream.
		_ = conn.SetReadDeadline(time.Time{})
		var b [1]byte
		_, _ = conn.Read(b[:])
	}()
	return ch
}

// eventStream is one client's stream. It holds one page of rows at most
// and hashes of what it sent.
type eventStream struct {
	s         *Server
	lister    transcriptLister
	log       *slog.Logger
	conn      net.Conn
	tenantID  string
	meetingID string
	// key is re-authenticated every recheck; the stream ends when it no
	// longer resolves to tenantID.
	key     string
	recheck time.Duration

	after       int // the last seq sent
	status      string
	topicsSum   uint64
	speakersSum uint64
	pending     pendingEventJSON
	pendingSent bool
	failing     bool // an error event was sent and nothing succeeded since
}

// writeError is a failed write to the client: the stream ends.
type writeError struct{ err error }

func (e writeError) Error() string { return "write event: " + e.err.Error() }

func (st *eventStream) run(ctx context.Context, w *bufio.Writer, hub *eventHub) {
	poll := time.NewTicker(eventPollInterval)
	defer poll.Stop()
	beat := time.NewTicker(eventHeartbeat)
	defer beat.Stop()
	recheck := time.NewTicker(st.recheck)
	defer recheck.Stop()
	if st.send(w, "ready", "", readyEventJSON{MeetingID: st.meetingID, AfterSeq: st.after}) != nil {
		return
	}
	for {
		// Taken before the reads, so a notification during them is not
		// lost.
		changed := hub.changed(st.meetingID)
		if err := st.flush(ctx, w); err != nil {
			return
		}
		last := time.Now()
		select {
		case <-ctx.Done():
			return
		case <-changed:
			if !sleepCtx(ctx, eventMinGap-time.Since(last)) {
				return
			}
		case <-poll.C:
		case <-beat.C:
			if st.write(w, []byte(": keep-alive\n\n")) != nil {
				return
			}
		case <-recheck.C:
			if !st.keyValid(ctx, w) {
				return
			}
		}
	}
}

// keyValid authenticates the stream's key again, past the key cache.
// When the key was revoked (or resolves to another tenant) it sends an
// error event and returns false; a failed lookup keeps the stream and is
// retried at the next check.
func (st *eventStream) keyValid(ctx context.Context, w *bufio.Writer) bool {
	qctx, cancel := context.WithTimeout(ctx, eventQueryTimeout)
	defer cancel()
	t, err := st.s.Store.Authenticate(qctx, st.key)
	switch {
	case err == nil && t.ID == st.tenantID:
		return true
	case err == nil || errors.Is(err, store.ErrUnauthenticated):
		st.log.Warn("event stream closed: its API key no longer works")
		var body errorBody
		body.Error.Code, body.Error.Message = codeUnauthenticated, "the API key of this stream was revoked or expired; the stream ends"
		_ = st.send(w, "error", "", body)
		return false
	case ctx.Err() != nil:
		return false
	}
	st.log.Warn("event stream key re-check failed; retrying at the next check", "err", err)
	return true
}

// sleepCtx waits d, or less when ctx ends first; false when it did.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// flush sends what changed since the last flush. A read error is
// reported to the client once and retried on the next round; only a
// write error or the end of ctx ends the stream.
func (st *eventStream) flush(ctx context.Context, w *bufio.Writer) error {
	qctx, cancel := context.WithTimeout(ctx, eventQueryTimeout)
	defer cancel()
	err := st.sendRows(qctx, w)
	var row store.Meeting
	if err == nil {
		row, err = st.sendMeeting(qctx, w)
	}
	if err == nil {
		err = st.sendContext(qctx, w, row)
	}
	var we writeError
	switch {
	case err == nil:
		st.failing = false
		return nil
	case errors.As(err, &we) || ctx.Err() != nil:
		return err
	case st.failing:
		return nil
	}
	st.failing = true
	st.log.Warn("meeting event stream read failed", "err", err)
	var body errorBody
	body.Error.Code, body.Error.Message = codeUnavailable, "reading the meeting failed; retrying"
	return st.send(w, "error", "", body)
}

// sendRows sends the stored rows after the last one sent, a page per
// event, and stops at a gap in seq (a row not yet visible).
func (st *eventStream) sendRows(ctx context.Context, w *bufio.Writer) error {
	for {
		rows, err := st.lister.ListTranscripts(ctx, st.tenantID, st.meetingID, st.after, eventPage)
		if err != nil {
			return err
		}
		n := 0
		for n < len(rows) && rows[n].Seq == st.after+1+n {
			n++
		}
		if n > 0 {
			last := rows[n-1].Seq
			if err := st.send(w, "transcript", strconv.Itoa(last), transcriptEventJSON{Rows: toTranscriptRows(rows[:n])}); err != nil {
				return err
			}
			st.after = last
		}
		if n < eventPage {
			return nil
		}
	}
}

// sendMeeting sends the meeting when its status changed (first: always),
// and returns its row.
func (st *eventStream) sendMeeting(ctx context.Context, w *bufio.Writer) (store.Meeting, error) {
	m, err := st.s.Store.GetMeeting(ctx, st.tenantID, st.meetingID)
	if err != nil {
		return store.Meeting{}, err
	}
	if m.Status == st.status {
		return m, nil
	}
	if err := st.send(w, "meeting", "", toMeetingJSON(m)); err != nil {
		return store.Meeting{}, err
	}
	st.status = m.Status
	return m, nil
}

// sendContext sends the topics, the pending counts and the speakers of
// the live context, caught up with the meeting row just read, each when
// it changed.
func (st *eventStream) sendContext(ctx context.Context, w *bufio.Writer, row store.Meeting) error {
	m, err := st.s.Contexts.GetAt(ctx, st.tenantID, st.meetingID, row)
	if err != nil {
		return err
	}
	snap := m.Snapshot()
	topics, err := json.Marshal(topicsEventJSON{L1Cursor: snap.L1Cursor, Topics: nonNil(snap.Topics)})
	if err != nil {
		return err
	}
	if sum := hash64(topics); sum != st.topicsSum {
		if err := st.sendRaw(w, "topics", topics); err != nil {
			return err
		}
		st.topicsSum = sum
	}
	p := pendingEventJSON{Cursor: snap.Cursor, L1Cursor: snap.L1Cursor, PendingTurns: len(snap.Pending),
		PendingTokens: snap.PendTokens, Busy: snap.L1Busy}
	if !st.pendingSent || p != st.pending {
		if err := st.send(w, "pending", "", p); err != nil {
			return err
		}
		st.pending, st.pendingSent = p, true
	}
	speakers, err := json.Marshal(speakersEventJSON{Speakers: nonNil(snap.Speakers)})
	if err != nil {
		return err
	}
	if sum := hash64(speakers); sum != st.speakersSum {
		if err := st.sendRaw(w, "speakers", speakers); err != nil {
			return err
		}
		st.speakersSum = sum
	}
	return nil
}

func hash64(b []byte) uint64 {
	h := fnv.New64a()
	_, _ = h.Write(b)
	return h.Sum64()
}

// send writes one event with its JSON data and an optional id.
func (st *eventStream) send(w *bufio.Writer, event, id string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return writeError{err}
	}
	if id != "" {
		return st.write(w, fmt.Appendf(nil, "id: %s\nevent: %s\ndata: %s\n\n", id, event, data))
	}
	return st.sendRaw(w, event, data)
}

func (st *eventStream) sendRaw(w *bufio.Writer, event string, data []byte) error {
	return st.write(w, fmt.Appendf(nil, "event: %s\ndata: %s\n\n", event, data))
}

// write writes and flushes b; a client that does not take it within
// eventWriteTimeout is dropped.
func (st *eventStream) write(w *bufio.Writer, b []byte) error {
	if st.conn != nil {
		_ = st.conn.SetWriteDeadline(time.Now().Add(eventWriteTimeout))
	}
	if _, err := w.Write(b); err != nil {
		return writeError{err}
	}
	if err := w.Flush(); err != nil {
		return writeError{err}
	}
	return nil
}
