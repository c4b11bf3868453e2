package wire

// SpaceCreateRequest creates a Space ("repo").
type SpaceCreateRequest struct {
	Name        *string        `json:"name" required:"true" doc:"The space's name: not blank, at most 255 characters"`
	Description *string        `json:"description" doc:"What it is about (default \"\")"`
	ProjectRoot *string        `json:"project_root" doc:"Absolute path of the project (default null)"`
	UserID      *string        `json:"user_id" doc:"Ignored: the caller owns the space (accepted for compatibility)"`
	Metadata    map[string]any `json:"metadata" required:"false" doc:"Free-form JSON object (default {})"`
}

// ProjectRootRequest sets a Space's project root.
type ProjectRootRequest struct {
	ProjectRoot *string `json:"project_root" required:"true" doc:"Absolute path of the project; null or \"\" clears it"`
}
