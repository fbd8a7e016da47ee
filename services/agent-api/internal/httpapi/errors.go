package httpapi

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/mithub/mithub/pkg/store"
	"github.com/mithub/mithub/services/agent-api/internal/meetings"
	"github.com/mithub/mithub/services/agent-api/internal/prs"
	"github.com/mithub/mithub/services/agent-api/internal/search"
)

// Error codes in the body of every error response.
const (
	codeInvalid         = "invalid_argument"
	codeUnauthenticated = "unauthenticated"
	codeNotFound        = "not_found"
	codeConflict        = "conflict"
	codeTooLarge        = "payload_too_large"
	codeUnsupportedType = "unsupported_media_type"
	codeMethod          = "method_not_allowed"
	codeUnavailable     = "unavailable"
	codeInternal        = "internal"
)

// apiError is an error with a status and a code for the client.
type apiError struct {
	Status  int
	Code    string
	Message string
	// RetryAfter, in seconds, is sent as Retry-After when positive.
	RetryAfter int
}

func (e *apiError) Error() string { return e.Message }

func errInvalid(format string, args ...any) error {
	return &apiError{Status: fiber.StatusBadRequest, Code: codeInvalid, Message: fmt.Sprintf(format, args...)}
}

func errNotFound(what string) error {
	return &apiError{Status: fiber.StatusNotFound, Code: codeNotFound, Message: what + " not found"}
}

type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// errorHandler is the single place where errors become responses. Client
// errors are logged at debug, server errors at error with the request id.
func errorHandler(log *slog.Logger) fiber.ErrorHandler {
	return func(c *fiber.Ctx, err error) error {
		ae := classify(err)
		if ae.Status >= 500 {
			log.Error("request failed", "method", c.Method(), "path", c.Path(),
				"request_id", requestID(c), "status", ae.Status, "err", err)
		} else {
			log.Debug("request rejected", "method", c.Method(), "path", c.Path(),
				"request_id", requestID(c), "status", ae.Status, "err", err)
		}
		if ae.RetryAfter > 0 {
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(ae.RetryAfter))
		}
		var body errorBody
		body.Error.Code = ae.Code
		body.Error.Message = ae.Message
		if ae.Status >= 500 {
			body.Error.Message += " (request id " + requestID(c) + ")"
		}
		return c.Status(ae.Status).JSON(body)
	}
}

func classify(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	var fe *fiber.Error
	if errors.As(err, &fe) {
		switch fe.Code {
		case fiber.StatusRequestEntityTooLarge:
			return &apiError{Status: fe.Code, Code: codeTooLarge, Message: "request body is larger than the limit"}
		case fiber.StatusNotFound:
			return &apiError{Status: fe.Code, Code: codeNotFound, Message: "no such route"}
		case fiber.StatusMethodNotAllowed:
			return &apiError{Status: fe.Code, Code: codeMethod, Message: "method not allowed on this route"}
		case fiber.StatusUnsupportedMediaType:
			return &apiError{Status: fe.Code, Code: codeUnsupportedType, Message: fe.Message}
		}
		if fe.Code >= 400 && fe.Code < 500 {
			return &apiError{Status: fe.Code, Code: codeInvalid, Message: fe.Message}
		}
	}
	if ae := classifyUseCase(err); ae != nil {
		return ae
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		return &apiError{Status: fiber.StatusNotFound, Code: codeNotFound, Message: "not found"}
	case errors.Is(err, store.ErrInvalid):
		return &apiError{Status: fiber.StatusBadRequest, Code: codeInvalid, Message: err.Error()}
	case errors.Is(err, store.ErrConflict):
		return &apiError{Status: fiber.StatusConflict, Code: codeConflict, Message: err.Error()}
	case errors.Is(err, store.ErrUnauthenticated):
		return &apiError{Status: fiber.StatusUnauthorized, Code: codeUnauthenticated, Message: "invalid or revoked API key"}
	case store.Unavailable(err):
		return &apiError{Status: fiber.StatusServiceUnavailable, Code: codeUnavailable, Message: "the database is unavailable; retry shortly", RetryAfter: 1}
	}
	return &apiError{Status: fiber.StatusInternalServerError, Code: codeInternal, Message: "internal error"}
}

// classifyUseCase maps the use cases' error categories, or returns nil.
func classifyUseCase(err error) *apiError {
	switch {
	case errors.Is(err, meetings.ErrNotFound), errors.Is(err, prs.ErrMeetingNotFound), errors.Is(err, search.ErrNotFound):
		return &apiError{Status: fiber.StatusNotFound, Code: codeNotFound, Message: "meeting not found"}
	case errors.Is(err, prs.ErrNotFound):
		return &apiError{Status: fiber.StatusNotFound, Code: codeNotFound, Message: "PR not found"}
	case errors.Is(err, meetings.ErrInvalid):
		return &apiError{Status: fiber.StatusBadRequest, Code: codeInvalid, Message: err.Error()}
	case errors.Is(err, prs.ErrConflict):
		return &apiError{Status: fiber.StatusConflict, Code: codeConflict, Message: err.Error()}
	case errors.Is(err, prs.ErrUnavailable):
		return &apiError{Status: fiber.StatusServiceUnavailable, Code: codeUnavailable, Message: err.Error()}
	}
	return nil
}
