package httpapi

// intelligenceRoutes are draft, extract and review.
func (s *Server) intelligenceRoutes() []route { return nil }
