package smriti

import (
	"smriti/internal/textutil"
	"strings"
	"time"
)

// Space owns Sessions and Checkpoints. On the wire a Space is a "repo".
type Space struct {
	ID          ID
	Slug        *string
	Name        string
	Description string
	ProjectRoot *string
	OwnerID     ID
	Metadata    map[string]any
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// SpaceCreate is what a caller may set when creating a Space.
type SpaceCreate struct {
	Name        string
	Description string
	ProjectRoot *string
	Metadata    map[string]any
}

// Validate checks a new Space: a name that is not blank and at most
// maxSpaceNameChars, a project root checkPath accepts, and metadata within
// CheckMetadata's bounds.
// EUNPROCESSABLE otherwise.
func (in *SpaceCreate) Validate() error {
	switch {
	case strings.TrimSpace(in.Name) == "":
		return Errorf(EUNPROCESSABLE, "name is required")
	case textutil.RuneLen(in.Name) > maxSpaceNameChars:
		return TooLong("name", maxSpaceNameChars)
	}
	if err := checkOptPath("project_root", in.ProjectRoot); err != nil {
		return err
	}
	return CheckMetadata("metadata", in.Metadata)
}

// Page asks for one page of a list. Lists are keyset-paginated: After is the
// opaque cursor returned with the previous page ("" for the first page).
type Page struct {
	// Limit is the page size; 0 means everything up to ListCap.
	Limit int
	After string
}

// AllItemsCommand is the command that lists every live item of the space,
// the one a brief points to for the items it only counts ("SPACE" stands
// for a name a shell would not take as one word; s may be nil).
func (s *Space) AllItemsCommand() string {
	name := "SPACE"
	if s != nil && strings.TrimSpace(s.Name) != "" && !strings.ContainsAny(s.Name, " \t\n`'\"$\\") {
		name = s.Name
	}
	return "smriti state " + name + " --all"
}
