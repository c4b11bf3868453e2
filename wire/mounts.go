package wire

// MountRequest mounts a checkpoint on a session.
type MountRequest struct {
	CheckpointID   *string `json:"checkpoint_id" required:"true" doc:"Checkpoint of the session's space to anchor the context to"`
	HistoryBaseSeq *int64  `json:"history_base_seq" doc:"Last sequence number to leave out: only later turns reach the model. Default: the session's last turn (only what is typed from now on); -1 keeps every turn"`
}
