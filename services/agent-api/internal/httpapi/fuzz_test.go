package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/valyala/fasthttp"

	"github.com/mithub/mithub/pkg/membank"
	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/services/agent-api/internal/ask"
)

// bodyTarget is one request type of the API with the check its handler
// runs after decoding.
type bodyTarget struct {
	name       string
	allowEmpty bool
	new        func() any
	validate   func(v any) error
}

var bodyTargets = []bodyTarget{
	{"create meeting", true, func() any { return &createMeetingRequest{} },
		func(v any) error { return v.(*createMeetingRequest).validate() }},
	{"utterances", false, func() any { return &postUtterancesRequest{} }, func(v any) error {
		for _, u := range v.(*postUtterancesRequest).Utterances {
			su := store.Utterance{SegmentID: u.SegmentID, SpeakerID: u.SpeakerID, SpeakerName: u.SpeakerName,
				Text: u.Text, StartMS: u.StartMS, EndMS: u.EndMS, Confidence: 1, Source: u.Source}
			if u.Confidence != nil {
				su.Confidence = *u.Confidence
			}
			if err := su.Validate(); err != nil {
				return err
			}
		}
		return nil
	}},
	{"ask", false, func() any { return &ask.Request{} }, nil},
	{"generate pr", true, func() any { return &generatePRRequest{} }, nil},
	{"memory entry", false, func() any { return &putMemoryEntryRequest{} }, func(v any) error {
		if c := v.(*putMemoryEntryRequest).Content; c != nil {
			return checkText("content", *c, membank.MaxContentLen)
		}
		return nil
	}},
	{"memory bank", false, func() any { return &putMemoryBankRequest{} }, func(v any) error {
		for cat, content := range v.(*putMemoryBankRequest).Categories {
			if err := checkText("categories."+cat, content, membank.MaxContentLen); err != nil {
				return err
			}
		}
		return nil
	}},
	{"empty object", true, func() any { return &struct{}{} }, nil},
}

// FuzzDecodeJSON feeds every request type of the API through decodeJSON.
// A rejected body is a 400 or 415 with a readable message; an accepted
// one is valid UTF-8 JSON whose value survives a JSON round trip and whose
// validation does not panic.
func FuzzDecodeJSON(f *testing.F) {
	app := fiber.New()
	f.Fuzz(func(t *testing.T, kind uint8, contentType string, body []byte) {
		target := bodyTargets[int(kind)%len(bodyTargets)]
		fctx := &fasthttp.RequestCtx{}
		c := app.AcquireCtx(fctx)
		defer app.ReleaseCtx(c)
		if contentType != "" {
			c.Request().Header.SetContentType(contentType)
		}
		c.Request().SetBody(body)

		v := target.new()
		err := decodeJSON(c, v, target.allowEmpty)
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) || (ae.Status != fiber.StatusBadRequest && ae.Status != fiber.StatusUnsupportedMediaType) {
				t.Fatalf("%s: error %v (%T), want a 400 or 415 apiError", target.name, err, err)
			}
			if ae.Message == "" || !utf8.ValidString(ae.Message) {
				t.Fatalf("%s: error message %q is empty or not UTF-8", target.name, ae.Message)
			}
			return
		}
		if !utf8.Valid(body) {
			t.Fatalf("%s: accepted a body that is not UTF-8: %q", target.name, body)
		}
		if strings.TrimSpace(string(body)) != "" && !json.Valid(body) {
			t.Fatalf("%s: accepted invalid JSON %q", target.name, body)
		}
		if target.validate != nil {
			_ = target.validate(v) // must not panic
		}
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: re-encode %#v: %v", target.name, v, err)
		}
		c.Request().Header.SetContentType(fiber.MIMEApplicationJSON)
		c.Request().SetBody(raw)
		again := target.new()
		if err := decodeJSON(c, again, target.allowEmpty); err != nil {
			t.Fatalf("%s: re-encoded body %s rejected: %v", target.name, raw, err)
		}
		if !reflect.DeepEqual(v, again) {
			t.Fatalf("%s: round trip changed the value:\n%#v\n%#v", target.name, v, again)
		}
	})
}

// FuzzRouteParams sends fuzzed path segments and query values through the
// parameter parsers of the routes: each either answers 400 with the API's
// error document or yields a canonical value.
func FuzzRouteParams(f *testing.F) {
	app := fiber.New(fiber.Config{ErrorHandler: errorHandler(discardLog())})
	app.Get("/m/:id", func(c *fiber.Ctx) error {
		id, err := meetingIDParam(c)
		if err != nil {
			return err
		}
		if u, perr := uuid.Parse(id); perr != nil || u.String() != id {
			return fiber.NewError(fiber.StatusTeapot, "non-canonical meeting id "+id)
		}
		return c.SendString(id)
	})
	app.Get("/p/:project/:category", func(c *fiber.Ctx) error {
		p, err := projectParam(c)
		if err != nil {
			return err
		}
		if _, err := categoryParam(c); err != nil {
			return err
		}
		if !utf8.ValidString(p) {
			return fiber.NewError(fiber.StatusTeapot, "project is not UTF-8")
		}
		return c.SendString(p)
	})
	app.Get("/s", func(c *fiber.Ctx) error {
		q, k, err := searchParams(c)
		if err != nil {
			return err
		}
		if _, err := boolQuery(c, "wait"); err != nil {
			return err
		}
		if k < 1 || k > maxK || !utf8.ValidString(q) || len(q) > maxQueryLen {
			return fiber.NewError(fiber.StatusTeapot, "bad search params")
		}
		return c.SendString(q)
	})
	f.Fuzz(func(t *testing.T, seg1, seg2, q string) {
		for _, target := range []string{
			"/m/" + url.PathEscape(seg1),
			"/p/" + url.PathEscape(seg1) + "/" + url.PathEscape(seg2),
			"/s?" + url.Values{"q": {q}, "k": {seg1}, "wait": {seg2}}.Encode(),
		} {
			// Longer request lines overflow app.Test's 4 KiB read buffer;
			// the server answers them 431 before any handler runs.
			if len(target) > 2<<10 {
				continue
			}
			req, err := http.NewRequest(http.MethodGet, "http://x"+target, nil)
			if err != nil {
				continue
			}
			resp, err := app.Test(req, -1)
			if err != nil {
				t.Fatalf("GET %s: %v", target, err)
			}
			resp.Body.Close()
			switch resp.StatusCode {
			case fiber.StatusOK, fiber.StatusBadRequest, fiber.StatusNotFound:
			default:
				t.Fatalf("GET %s: status %d", target, resp.StatusCode)
			}
		}
	})
}

func discardLog() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// FuzzMeetingMetadata builds create-meeting bodies around fuzzed metadata
// (keys and values at any depth, NUL included): a body either gets a 400
// with a readable message or its metadata, as stored, holds no NUL, which
// PostgreSQL's jsonb refuses (that was a 500).
func FuzzMeetingMetadata(f *testing.F) {
	f.Add("project", "a\x00b", uint8(0))
	f.Add("a\x00", "회의", uint8(0))
	f.Add("팀", "x\x00", uint8(1))
	f.Add("k", "\x00", uint8(2))
	f.Add("k", "v", uint8(3))
	app := fiber.New()
	f.Fuzz(func(t *testing.T, key, value string, shape uint8) {
		var md any
		switch shape % 4 {
		case 0:
			md = map[string]any{key: value}
		case 1:
			md = map[string]any{"outer": map[string]any{key: value}}
		case 2:
			md = map[string]any{"list": []any{1, map[string]any{key: []any{value}}}}
		default:
			md = map[string]any{key: value, "n": 1.5, "ok": true, "nil": nil}
		}
		body, err := json.Marshal(map[string]any{"title": "t", "metadata": md})
		if err != nil {
			return // not UTF-8: decodeJSON's own fuzz target covers it
		}
		fctx := &fasthttp.RequestCtx{}
		c := app.AcquireCtx(fctx)
		defer app.ReleaseCtx(c)
		c.Request().Header.SetContentType(fiber.MIMEApplicationJSON)
		c.Request().SetBody(body)
		var req createMeetingRequest
		err = decodeJSON(c, &req, true)
		if err == nil {
			err = req.validate()
		}
		hasNUL := strings.Contains(string(body), `\u0000`)
		if err != nil {
			var ae *apiError
			if !errors.As(err, &ae) || ae.Status != fiber.StatusBadRequest || ae.Message == "" || !utf8.ValidString(ae.Message) {
				t.Fatalf("body %s: error %v, want a 400 with a readable message", body, err)
			}
			if hasNUL && !strings.Contains(ae.Message, "NUL") {
				t.Fatalf("body %s: refusal %q does not name the NUL", body, ae.Message)
			}
			return
		}
		if hasNUL {
			t.Fatalf("body %s with a NUL in its metadata was accepted", body)
		}
		stored, err := json.Marshal(req.Metadata)
		if err != nil || strings.Contains(string(stored), `\u0000`) {
			t.Fatalf("accepted metadata %s (%v) holds a NUL", stored, err)
		}
	})
}
