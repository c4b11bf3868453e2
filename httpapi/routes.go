package httpapi

import (
	"net/http"
)

// route is one endpoint: what it does, what it takes and returns (for the
// OpenAPI document) and its handler. The mux and the OpenAPI document are
// both built from the same table, so they cannot drift apart.
type route struct {
	method  string
	path    string
	summary string
	tag     string
	// in is a zero value of the request body type (nil when there is none).
	in any
	// files, when set, says the body is a file rather than JSON and lists
	// the media types it may be sent as.
	files []string
	// out is a zero value of the success body type (nil for no body).
	out    any
	status int
	// query lists the query parameters: name → description.
	query map[string]string
	// paths describes the path parameters that are not UUIDs: name →
	// description (the rest are documented as UUIDs).
	paths map[string]string
	// mustQuery names the query parameters the route refuses to run
	// without (required in the document).
	mustQuery []string
	handle    func(w http.ResponseWriter, r *http.Request) error
	// stream, when set, marks a text/event-stream answer and says which
	// events it sends.
	stream string
	// text, when set, is the media type of a plain-text answer.
	text string

	// Optional documentation; the zero value is fine for all of them.

	// description explains the route beyond its summary (shown in /docs).
	description string
	// errors lists error statuses the route can answer beyond the ones its
	// shape implies (see errorStatuses): 409, 502, 503 and the like.
	errors []int
	// headers lists request headers the route reads: name → description.
	headers map[string]string
	// idempotent marks a creating write that takes an Idempotency-Key
	// (see idempotency.go).
	idempotent bool
	// also lists answers beside the main one that have their own body: a
	// dry run's preview, a health check's 503.
	also []answer
	// querySchema gives a query parameter a schema other than a plain
	// string: name → JSON Schema.
	querySchema map[string]map[string]any
}

// answer is one success answer of a route: its status, a zero value of its
// body type (nil for none) and what it means.
type answer struct {
	status      int
	out         any
	description string
}

// allRoutes gathers the routes each area of the API declares in its own
// file.
func (s *Server) allRoutes() []route {
	var all []route
	for _, group := range [][]route{
		s.systemRoutes(),
		s.spaceRoutes(),
		s.checkpointRoutes(),
		s.resolveRoutes(),
		s.secretRoutes(),
		s.proposalRoutes(),
		s.itemRoutes(),
		s.sessionRoutes(),
		s.chatRoutes(),
		s.intelligenceRoutes(),
		s.lineageRoutes(),
		s.mountRoutes(),
		s.portabilityRoutes(),
		s.searchGroupRoutes(),
		s.coordinationRoutes(),
		s.eventRoutes(),
		s.accountRoutes(),
		s.receiptRoutes(),
		s.nextBaseRoutes(),
		s.syncRoutes(),
	} {
		all = append(all, group...)
	}
	return all
}
