package httpapi

import (
	_ "embed"

	"github.com/gofiber/fiber/v2"

	"github.com/mithub/mithub/pkg/health"
)

func (s *Server) healthz(c *fiber.Ctx) error {
	return c.JSON(fiber.Map{"status": "ok"})
}

// readyz checks every dependency at once; any failure is 503 naming it.
func (s *Server) readyz(c *fiber.Ctx) error {
	status, body := health.Evaluate(c.UserContext(), s.Log, s.Ready).Body()
	return c.Status(status).JSON(body)
}

//go:embed openapi.json
var openapiDoc []byte

func (s *Server) openapi(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(openapiDoc)
}
