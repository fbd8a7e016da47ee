package httpapi

import (
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/cors"
)

// corsMaxAge is how long, in seconds, a browser may cache a preflight.
const corsMaxAge = 600

// newCORS returns the CORS middleware for origins (each "*",
// "https://host[:port]" or "https://*.domain", validated by the config), or
// nil when origins is empty: then no CORS headers are sent and browsers
// keep to the same origin. Credentials (cookies) are not allowed; API keys
// travel in the Authorization header, which preflights allow.
func newCORS(origins []string) fiber.Handler {
	if len(origins) == 0 {
		return nil
	}
	allow := strings.Join(origins, ",")
	if slices.Contains(origins, "*") {
		allow = "*"
	}
	return cors.New(cors.Config{
		AllowOrigins: allow,
		AllowMethods: strings.Join([]string{fiber.MethodGet, fiber.MethodPost, fiber.MethodPut, fiber.MethodHead}, ","),
		AllowHeaders: strings.Join([]string{fiber.HeaderAuthorization, fiber.HeaderContentType, fiber.HeaderAccept,
			fiber.HeaderXRequestID, "Last-Event-ID"}, ","),
		ExposeHeaders: strings.Join([]string{fiber.HeaderXRequestID, fiber.HeaderRetryAfter, rateLimitRemainingHdr,
			fiber.HeaderWWWAuthenticate}, ","),
		MaxAge: corsMaxAge,
	})
}
