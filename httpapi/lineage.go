package httpapi

// lineageRoutes are fork, tree, compare, reachable, disposition and merge.
func (s *Server) lineageRoutes() []route { return nil }
