package httpapi

import (
	"net/http"
	"strings"
	"sync"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mithub/mithub/pkg/apiclient"
	"github.com/mithub/mithub/pkg/mcpserver"
	"github.com/mithub/mithub/pkg/memory"
)

// mcpBodyLimit bounds one MCP request (a memory_add_message carries up to
// 200k characters).
const mcpBodyLimit = 4 << 20

// mcpState holds what the /mcp handler builds once.
type mcpState struct {
	once sync.Once
	mem  *memory.Service
}

// memoryService returns Deps.Memory, or a memory service on the store
// that compresses in this process with the offline summarizer.
func (s *Server) memoryService() (*memory.Service, bool) {
	if s.Memory != nil {
		return s.Memory, true
	}
	s.mcpState.once.Do(func() {
		st, ok := s.Store.(memory.Store)
		if !ok {
			return
		}
		eng := memory.NewEngine(st, s.Tokens, memory.NewLocal(), memory.Config{})
		s.mcpState.mem = memory.NewService(eng, memory.NewInline(eng))
	})
	return s.mcpState.mem, s.mcpState.mem != nil
}

// mcp serves the Model Context Protocol over streamable HTTP (stateless,
// JSON responses) for the authenticated tenant. The meeting tools call
// this API back over loopback with the caller's key, so they see exactly
// what the caller may see.
func (s *Server) mcp(c *fiber.Ctx) error {
	mem, ok := s.memoryService()
	if !ok {
		return &apiError{Status: fiber.StatusServiceUnavailable, Code: codeUnavailable, Message: "memory is not available on this server"}
	}
	tenant := tenantOf(c)
	_, key, _ := strings.Cut(c.Get(fiber.HeaderAuthorization), " ")
	base := "http://" + c.Context().LocalAddr().String()
	meetings := apiclient.New(base, strings.TrimSpace(key), apiclient.WithUserAgent("mithub-mcp/1"),
		apiclient.WithRetryPolicy(apiclient.NoRetry()))
	srv, err := mcpserver.New(mcpserver.Options{TenantID: tenant.ID, Memory: mem, Meetings: meetings})
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
