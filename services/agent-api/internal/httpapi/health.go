package httpapi

import (
	"context"
	_ "embed"
	"sort"
	"time"

	"github.com/gofiber/fiber/v2"
)

func (s *Server) healthz(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"status": "ok"})
}

// readyz pings every dependency with a short deadline; any failure is 503
// with the failing dependency named.
func (s *Server) readyz(c *fiber.Ctx) error {
	ctx, cancel := context.WithTimeout(c.UserContext(), 2*time.Second)
	defer cancel()
	names := make([]string, 0, len(s.Ready))
	for n := range s.Ready {
		names = append(names, n)
	}
	sort.Strings(names)
	checks := make(map[string]string, len(names))
	ok := true
	for _, n := range names {
		if err := s.Ready[n](ctx); err != nil {
			checks[n] = "unavailable"
			s.Log.Warn("readiness check failed", "dependency", n, "err", err)
			ok = false
			continue
		}
		checks[n] = "ok"
	}
	if !ok {
		return c.Status(fiber.StatusServiceUnavailable).JSON(fiber.Map{
			"status": "unavailable", "checks": checks,
			"error": fiber.Map{"code": codeUnavailable, "message": "a dependency is unavailable"},
		})
	}
	return c.JSON(fiber.Map{"status": "ok", "checks": checks})
}

//go:embed openapi.json
var openapiDoc []byte

func (s *Server) openapi(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(openapiDoc)
}
