package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
)

// decodeJSON strictly decodes the request body into v: the content type, if
// given, must be JSON; the body must be valid UTF-8 and hold exactly one
// JSON value with no unknown fields. An empty body decodes as {} when
// allowEmpty is set.
func decodeJSON(c *fiber.Ctx, v any, allowEmpty bool) error {
	if ct := c.Get(fiber.HeaderContentType); ct != "" {
		mt, _, err := mime.ParseMediaType(ct)
		if err != nil || (mt != fiber.MIMEApplicationJSON && !strings.HasSuffix(mt, "+json")) {
			return &apiError{Status: fiber.StatusUnsupportedMediaType, Code: codeUnsupportedType,
				Message: "content type must be application/json"}
		}
	}
	body := c.Body()
	if len(bytes.TrimSpace(body)) == 0 {
		if allowEmpty {
			return nil
		}
		return errInvalid("request body is empty; a JSON object is required")
	}
	if !utf8.Valid(body) {
		return errInvalid("request body is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errInvalid("request body has data after the JSON value")
	}
	return nil
}

func jsonError(err error) error {
	var (
		syn *json.SyntaxError
		typ *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &syn):
		return errInvalid("malformed JSON at byte %d: %s", syn.Offset, syn.Error())
	case errors.As(err, &typ):
		if typ.Field == "" {
			return errInvalid("request body must be a JSON %s, not %s", typ.Type.Kind(), typ.Value)
		}
		return errInvalid("field %q must be %s, not %s", typ.Field, jsonKind(typ.Type.Kind().String()), typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errInvalid("malformed JSON: unexpected end of body")
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return errInvalid("unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return errInvalid("malformed JSON: %v", err)
}

func jsonKind(k string) string {
	switch k {
	case "int", "int32", "int64", "uint", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	case "string":
		return "a string"
	case "slice":
		return "an array"
	case "map", "struct":
		return "an object"
	case "bool":
		return "a boolean"
	}
	return k
}

// meetingIDParam returns the route's meeting id in canonical form.
func meetingIDParam(c *fiber.Ctx) (string, error) {
	return parseMeetingID(c.Params("id"))
}

// parseMeetingID returns a meeting id in canonical form.
func parseMeetingID(raw string) (string, error) {
	id, err := uuid.Parse(raw)
	if err != nil || len(raw) != 36 {
		return "", errInvalid("meeting id %q is not a UUID", truncate(raw, 64))
	}
	return id.String(), nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// checkText enforces a length limit and valid UTF-8 on a string field.
// checkJSONNoNUL rejects a NUL character in any key or string of v, a
// decoded JSON value stored as jsonb: PostgreSQL cannot store \u0000 in
// jsonb. path names v in the message.
func checkJSONNoNUL(path string, v any) error {
	switch v := v.(type) {
	case string:
		if strings.IndexByte(v, 0) >= 0 {
			return errInvalid("%s must not contain NUL (\\u0000): it cannot be stored", path)
		}
	case map[string]any:
		for k, e := range v {
			if strings.IndexByte(k, 0) >= 0 {
				return errInvalid("%s has a key with NUL (\\u0000), %q: it cannot be stored", path, truncate(k, 32))
			}
			if err := checkJSONNoNUL(path+"."+truncate(k, 32), e); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range v {
			if err := checkJSONNoNUL(path+"["+strconv.Itoa(i)+"]", e); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkText(field, v string, max int) error {
	if len(v) > max {
		return errInvalid("%s is longer than %d bytes", field, max)
	}
	if strings.IndexByte(v, 0) >= 0 {
		return errInvalid("%s must not contain NUL", field)
	}
	return nil
}
