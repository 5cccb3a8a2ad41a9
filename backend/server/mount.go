package server

import "net/http"

// Mount serves h under pattern behind the same bearer token as the rest of the API: `loupe serve` mounts the MCP
// server's streamable HTTP transport at /mcp this way.
func (s *Server) Mount(pattern string, h http.Handler) {
	s.mux.HandleFunc(pattern, s.auth(h.ServeHTTP))
}
