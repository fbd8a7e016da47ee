package httpapi

import (
	"github.com/gofiber/fiber/v2"

	"github.com/mithub/mithub/services/agent-api/internal/console"
)

// consolePath is where the web console is served.
const consolePath = "/console/"

// consoleRoutes serves the web console: GET / and GET /console redirect to
// /console/, and GET /console/* serves the embedded assets. The console
// needs no key to load; it asks for one and sends it on its /v1 calls.
func (s *Server) consoleRoutes(app *fiber.App) {
	assets, err := console.Load()
	if err != nil {
		// The assets are compiled in; this is a build defect that the
		// console tests catch. The API still serves.
		s.Log.Error("web console disabled", "err", err)
		app.Get("/console/*", func(c *fiber.Ctx) error {
			return errUnavailable("the web console is not available in this build")
		})
		return
	}
	serve := assets.Handler()
	app.Get("/", toConsole)
	app.Get("/console/*", func(c *fiber.Ctx) error {
		// /console without the slash: relative URLs must resolve below it.
		if c.Path() == "/console" {
			return toConsole(c)
		}
		return serve(c)
	})
}

func toConsole(c *fiber.Ctx) error {
	return c.Redirect(consolePath, fiber.StatusFound)
}
