package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"smriti"
	"smriti/coord"
	"smriti/internal/textutil"
	"smriti/render"
	"smriti/tokenizer"
)

// briefClientQuery are the brief's parameters that let a client print the
// brief as it would render it itself, without a tokenizer of its own: the
// server counts, so a CLI command stays as light as `smriti version`.
var briefClientQuery = map[string]string{
	"prime":     "true: the text `smriti prime` prints: how to use Smriti, then the compact brief, within 2,000 tokens in all (compact, preview, stats and budget are ignored)",
	"main_only": "true: only main's head: no branches, claims, divergence or freshness",
	"home":      "the reader's home directory, shown as ~ at the start of paths",
	"reserve":   "tokens the client keeps free within the budget for what it adds (0 or more; with budget or prime)",
	"max_chars": "the most characters (UTF-16 code units, as agent hosts count them) the brief should take: the budget shrinks until it fits, if it can",
}

func (s *Server) spaceBrief(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	if f := r.URL.Query().Get("format"); f != "" && f != "markdown" {
		return smriti.Errorf(smriti.EINVALID, "format must be markdown, got %q", textutil.Truncate(f, 32))
	}
	opts, prime, mainOnly, err := briefOptionsOf(r)
	if err != nil {
		return err
	}
	opts.Now = s.now()
	reserve, err := queryCount(r, "reserve", 0)
	if err != nil {
		return err
	}
	maxChars, err := queryCount(r, "max_chars", 1)
	if err != nil {
		return err
	}
	b, err := s.brief(r, id)
	if err != nil {
		return err
	}
	if mainOnly {
		b = mainOnlyOf(b)
	}
	var md string
	switch {
	case prime:
		md = render.RenderPrime(b, opts, reserve).Text
	default:
		if opts.Budget > 0 {
			opts.Budget = max(1, opts.Budget-reserve)
		}
		md = render.RenderBriefWithin(b, opts, maxChars)
	}
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, err = w.Write([]byte(md))
	return err
}

// briefOptionsOf reads the brief's rendering options from the query.
func briefOptionsOf(r *http.Request) (o render.BriefOptions, prime, mainOnly bool, err error) {
	var ask render.BriefAsk
	for _, f := range []struct {
		name string
		to   *bool
	}{{"compact", &ask.Compact}, {"preview", &ask.Preview}, {"stats", &ask.Stats}, {"prime", &prime}, {"main_only", &mainOnly}} {
		if *f.to, err = queryBool(r, f.name); err != nil {
			return o, false, false, err
		}
	}
	if ask.Budget, err = briefBudget(r); err != nil {
		return o, false, false, err
	}
	// The API lists every item unless a budget is asked for.
	ask.All = ask.Budget == 0
	o = ask.Options(time.Time{}, tokenizer.CountO200K)
	o.Home = r.URL.Query().Get("home")
	return o, prime, mainOnly, err
}

// mainOnlyOf is b without what is not main's head.
func mainOnlyOf(b *coord.StateBrief) *coord.StateBrief {
	out := *b
	out.Branches, out.MoreBranches = nil, 0
	out.Claims, out.MoreClaims = nil, 0
	out.Divergence, out.MoreDivergent = nil, 0
	out.Freshness = nil
	return &out
}

// queryCount reads a whole-number query parameter of at least least (0
// when absent).
func queryCount(r *http.Request, name string, least int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < least || n > 1_000_000 {
		return 0, smriti.Errorf(smriti.EINVALID, "%s must be a whole number from %d to 1000000, got %q", name, least, textutil.Truncate(v, 32))
	}
	return n, nil
}
