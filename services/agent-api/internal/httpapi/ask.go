package httpapi

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/mithub/mithub/pkg/logging"
	"github.com/mithub/mithub/services/agent-api/internal/ask"
)

// askTimeout bounds answering once the stream has started.
const askTimeout = 2 * time.Minute

// ask answers a question about the meeting: SSE events token, citation,
// done and error by default, one JSON body with Accept: application/json.
// Errors found before the answer starts are plain JSON errors.
func (s *Server) ask(c *fiber.Ctx) error {
	id, err := meetingIDParam(c)
	if err != nil {
		return err
	}
	debug, err := boolQuery(c, "debug")
	if err != nil {
		return err
	}
	var req ask.Request
	if err := decodeJSON(c, &req, false); err != nil {
		return err
	}
	req.Debug = debug
	p, err := s.Ask.Prepare(c.UserContext(), tenantOf(c).ID, id, req)
	if err != nil {
		return askErr(err)
	}
	if wantsJSON(c.Get(fiber.HeaderAccept)) {
		res, err := s.answer(c.UserContext(), p)
		if err != nil {
			return err
		}
		return c.JSON(res)
	}

	c.Set(fiber.HeaderContentType, "text/event-stream; charset=utf-8")
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Set("X-Accel-Buffering", "no")
	log, rid := s.Log, requestID(c)
	// The writer runs after the handler returns, when the request's
	// context is gone: it gets a context of its own, cancelled when the
	// client stops reading.
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		ctx, cancel := context.WithTimeout(logging.WithRequestID(context.Background(), rid), askTimeout)
		defer cancel()
		// Tokens go out as they come; the citations, known only at the
		// end, go out with the done event in one write.
		send := func(event string, v any) error {
			if err := writeEvent(w, event, v, event != "citation"); err != nil {
				cancel()
				return err
			}
			return nil
		}
		res, err := s.Ask.Answer(ctx, p, func(tok string) error {
			return send("token", map[string]string{"text": tok})
		})
		if err != nil {
			if ctx.Err() == nil || errors.Is(ctx.Err(), context.DeadlineExceeded) {
				log.Warn("ask failed mid-stream", "meeting_id", id, "request_id", rid, "err", err)
				var body errorBody
				body.Error.Code, body.Error.Message = codeUnavailable, "the model did not answer: "+err.Error()
				_ = send("error", body)
			}
			return
		}
		for _, cit := range res.Citations {
			if send("citation", cit) != nil {
				return
			}
		}
		_ = send("done", res)
	})
	return nil
}

// answer answers a prepared question in one piece.
func (s *Server) answer(ctx context.Context, p *ask.Prepared) (ask.Result, error) {
	ctx, cancel := context.WithTimeout(ctx, askTimeout)
	defer cancel()
	res, err := s.Ask.Answer(ctx, p, func(string) error { return nil })
	if err != nil {
		return ask.Result{}, &apiError{Status: fiber.StatusBadGateway, Code: codeUnavailable, Message: "the model did not answer: " + err.Error()}
	}
	return res, nil
}

// writeEvent writes one SSE event, and flushes it when flush is set.
func writeEvent(w *bufio.Writer, event string, v any, flush bool) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, data); err != nil {
		return err
	}
	if !flush {
		return nil
	}
	return w.Flush()
}

// wantsJSON: the client asked for JSON and not for an event stream.
func wantsJSON(accept string) bool {
	return strings.Contains(accept, fiber.MIMEApplicationJSON) && !strings.Contains(accept, "text/event-stream")
}

func askErr(err error) error {
	if errors.Is(err, ask.ErrInvalid) {
		return errInvalid("%s", err.Error())
	}
	return meetingErr(err)
}
