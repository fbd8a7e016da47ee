package httpapi

import (
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mithub/mithub/pkg/mcpserver"
)

// mcpBodyLimit bounds one MCP request (a memory_add_message carries up to
// 200k characters).
const mcpBodyLimit = 4 << 20

// mcp serves the Model Context Protocol over streamable HTTP (stateless,
// JSON responses) for the authenticated tenant. The memory tools use
// Deps.Memory; the meeting tools call the meeting, search and ask use
// cases in-process for the tenant (mcpMeetings), so they see exactly what
// the tenant's API key may see.
func (s *Server) mcp(c *fiber.Ctx) error {
	if s.Memory == nil {
		return &apiError{Status: fiber.StatusServiceUnavailable, Code: codeUnavailable, Message: "memory is not available on this server"}
	}
	tenant := tenantOf(c)
	srv, err := mcpserver.New(mcpserver.Options{TenantID: tenant.ID, Memory: s.Memory, Meetings: &mcpMeetings{s: s, tenantID: tenant.ID}})
	if err != nil {
		return err
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{
		Stateless:           true,
		JSONResponse:        true,
		MaxRequestBodyBytes: mcpBodyLimit,
		Logger:              s.Log,
	})
	if err := adaptor.HTTPHandler(h)(c); err != nil {
		return err
	}
	return mcpErrorDocument(c)
}

// mcpErrorDocument turns a plain-text error from the MCP transport (bad
// content type, unreadable body, ...) into the API's error document, so
// every error response of this server has the same shape.
func mcpErrorDocument(c *fiber.Ctx) error {
	status := c.Response().StatusCode()
	if status < 400 || strings.HasPrefix(string(c.Response().Header.ContentType()), fiber.MIMEApplicationJSON) {
		return nil
	}
	msg := strings.TrimSpace(string(c.Response().Body()))
	if msg == "" {
		msg = http.StatusText(status)
	}
	c.Response().ResetBody()
	code := codeInvalid
	switch status {
	case fiber.StatusUnsupportedMediaType:
		code = codeUnsupportedType
	case fiber.StatusRequestEntityTooLarge:
		code = codeTooLarge
	case fiber.StatusMethodNotAllowed:
		code = codeMethod
	case fiber.StatusNotFound:
		code = codeNotFound
	}
	if status >= 500 {
		code = codeInternal
	}
	return &apiError{Status: status, Code: code, Message: "mcp: " + truncate(msg, 500)}
}

// mcpGet answers GET /mcp: the server is stateless and sends every
// response in the reply to its POST, so there is no stream to open.
func mcpGet(c *fiber.Ctx) error {
	c.Set(fiber.HeaderAllow, fiber.MethodPost)
	return &apiError{Status: fiber.StatusMethodNotAllowed, Code: codeMethod,
		Message: "MCP here is stateless streamable HTTP: send requests with POST"}
}
