package httpapi

import (
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/mithub/mithub/pkg/logging"
)

const requestIDKey = "requestid"

// maxRequestIDLen bounds a request id taken from the client.
const maxRequestIDLen = 128

// requestIDs gives every request an id: the client's X-Request-ID when it
// is short and plain (letters, digits, '-', '_', '.', ':'), else a new
// UUID. The id is sent back in X-Request-ID, kept in the locals, and put in
// the request's user context so that every log line written with that
// context carries it as request_id.
func requestIDs(c *fiber.Ctx) error {
	id := c.Get(fiber.HeaderXRequestID)
	if !plainRequestID(id) {
		id = uuid.NewString()
	}
	c.Set(fiber.HeaderXRequestID, id)
	c.Locals(requestIDKey, id)
	c.SetUserContext(logging.WithRequestID(c.UserContext(), id))
	return c.Next()
}

func plainRequestID(id string) bool {
	if id == "" || len(id) > maxRequestIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch b := id[i]; {
		case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b >= '0' && b <= '9',
			b == '-', b == '_', b == '.', b == ':':
		default:
			return false
		}
	}
	return true
}

func requestID(c *fiber.Ctx) string {
	id, _ := c.Locals(requestIDKey).(string)
	return id
}
