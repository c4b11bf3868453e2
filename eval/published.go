package eval

import (
	"embed"
	"io/fs"
	"slices"
)

// published is the repository's scenario set, built into the binary so
// that `smriti eval` runs anywhere.
//
//go:embed scenarios/*.txtar
var published embed.FS

// Published parses the published scenarios (eval/scenarios), sorted by
// file name.
func Published() ([]*Scenario, error) {
	names, err := fs.Glob(published, "scenarios/*.txtar")
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var out []*Scenario
	for _, n := range names {
		data, err := published.ReadFile(n)
		if err != nil {
			return nil, err
		}
		sc, err := Parse(n[len("scenarios/"):], data)
		if err != nil {
			return nil, err
		}
		out = append(out, sc)
	}
	return out, nil
}
