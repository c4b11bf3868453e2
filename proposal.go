package smriti

// ProposalDraft is what accepting a proposal commits.
type ProposalDraft struct {
	// Content holds the title (Content.Message) and the full proposed state.
	Content Content
	// Items propose the items' ids, supersedes and origins, as in
	// CheckpointCommit.
	Items       []Item
	Model       *string
	AuthorType  string
	AuthorAgent *string
	ProjectRoot *string
	SourceTurns *SourceTurns
	Git         *GitState
	// Conflicts, on a proposal a pull left, are the items both copies
	// changed: accepting the proposal takes the other copy's side of each.
	Conflicts []MergeConflict
}

// Validate checks a draft as CheckpointCommit.Validate checks a commit.
func (d *ProposalDraft) Validate() error {
	in := CheckpointCommit{Content: d.Content, ProjectRoot: d.ProjectRoot, Git: d.Git, SourceTurns: d.SourceTurns}
	if err := in.Validate(); err != nil {
		return err
	}
	if d.AuthorType != "" {
		if err := validateAuthorType(d.AuthorType); err != nil {
			return err
		}
	}
	return nil
}
