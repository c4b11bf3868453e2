package wire

// SessionCreateRequest creates a session.
type SessionCreateRequest struct {
	RepoID   *string `json:"repo_id" doc:"The space (UUID; null for a session without one)"`
	Title    string  `json:"title" required:"false" doc:"The title (default: Session <Mon DD HH:MM>)"`
	Provider string  `json:"provider" required:"false" doc:"The provider (default: the chat default)"`
	Model    string  `json:"model" required:"false" doc:"The model (default: the provider's)"`
	SeedFrom string  `json:"seed_from" required:"false" doc:"head (default: main's newest checkpoint), none, or a checkpoint id of the space, which is mounted with every turn"`
}

// AttachRequest attaches a session to a space.
type AttachRequest struct {
	RepoID *string `json:"repo_id" required:"true" doc:"The space to attach the session to (UUID)"`
}
