package httpapi

// chatRoutes are sending, streaming, the context preview, titles and
// provider status.
func (s *Server) chatRoutes() []route { return nil }
