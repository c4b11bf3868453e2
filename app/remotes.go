package app

import (
	"context"

	"smriti"
	"smriti/remote"
)

// Copies of one space (SPEC §3): remotes, and fetch, pull, push and clone
// between this server and another copy. This server talks to the other
// through a remote.Peer — the HTTP client for a Smriti server, the git
// adapter for a git repository, both wired by main; another Smriti server
// answers with SyncRefs, SyncExport and ReceivePush.

// dialURL reaches the copy at url: a git repository through the git
// dialer, a Smriti server through the HTTP one (remote.IsGitURL decides).
func (a *App) dialURL(url, token string) (remote.Peer, error) {
	if remote.IsGitURL(url) {
		if a.gitDial == nil {
			return nil, errNoGit
		}
		return a.gitDial(url, ""), nil
	}
	if a.dial == nil {
		return nil, smriti.Errorf(smriti.EUNAVAILABLE, "this server cannot reach other servers")
	}
	return a.dial(url, token), nil
}

// errNoGit answers a git remote on a server built without a way to reach
// one.
var errNoGit = smriti.Errorf(smriti.EUNAVAILABLE, "this server does not reach git repositories: a server people sign in to reaches them only when its operator sets SMRITI_GIT_REMOTES=on; use a Smriti server's URL instead")

// AddRemote records another copy of a space. A remote without a space id
// names the same space there (a clone keeps ids). A git repository is
// refused (EUNAVAILABLE) by a server that cannot reach one.
func (a *App) AddRemote(ctx context.Context, in remote.Create) (*remote.Remote, error) {
	if remote.IsGitURL(in.URL) && a.gitDial == nil {
		return nil, errNoGit
	}
	return a.store.AddRemote(ctx, in)
}

// RemoteStatus is a remote with how each of its tracked branches stands
// against the local one.
type RemoteStatus struct {
	Remote     *remote.Remote
	Divergence []remote.Divergence
}

// Remotes lists a space's remotes with their divergence.
func (a *App) Remotes(ctx context.Context, space smriti.ID) ([]RemoteStatus, error) {
	list, err := a.store.Remotes(ctx, space)
	if err != nil {
		return nil, err
	}
	out := make([]RemoteStatus, 0, len(list))
	for _, r := range list {
		d, err := a.divergence(ctx, r)
		if err != nil {
			return nil, err
		}
		out = append(out, RemoteStatus{Remote: r, Divergence: d})
	}
	return out, nil
}

// ShowRemote returns one remote with its divergence.
func (a *App) ShowRemote(ctx context.Context, space smriti.ID, name string) (*RemoteStatus, error) {
	r, err := a.store.Remote(ctx, space, name)
	if err != nil {
		return nil, err
	}
	d, err := a.divergence(ctx, r)
	if err != nil {
		return nil, err
	}
	return &RemoteStatus{Remote: r, Divergence: d}, nil
}

// RemoveRemote forgets a remote.
func (a *App) RemoveRemote(ctx context.Context, space smriti.ID, name string) error {
	return a.store.RemoveRemote(ctx, space, name)
}

// SetSessionPrivate marks a session private (it never leaves this server)
// or shared.
func (a *App) SetSessionPrivate(ctx context.Context, id smriti.ID, private bool) error {
	return a.store.SetSessionPrivate(ctx, id, private)
}

// SessionPrivate reports whether a session is private.
func (a *App) SessionPrivate(ctx context.Context, id smriti.ID) (bool, error) {
	return a.store.SessionPrivate(ctx, id)
}

// remoteDivergence is how the space stands against each of its remotes.
func (a *App) remoteDivergence(ctx context.Context, space smriti.ID) ([]remote.Divergence, error) {
	list, err := a.store.Remotes(ctx, space)
	if err != nil {
		return nil, err
	}
	var out []remote.Divergence
	for _, r := range list {
		d, err := a.divergence(ctx, r)
		if err != nil {
			return nil, err
		}
		out = append(out, d...)
	}
	return out, nil
}

// divergence says, for each tracked branch, how many local checkpoints the
// remote lacks and how many fetched ones the local branch lacks.
func (a *App) divergence(ctx context.Context, r *remote.Remote) ([]remote.Divergence, error) {
	out := []remote.Divergence{}
	for _, h := range r.Heads {
		d := remote.Divergence{Branch: h.Branch, Remote: r.Name, FetchedAt: r.FetchedAt}
		var err error
		if d.Behind, err = a.store.StagedCount(ctx, r.SpaceID, r.Name, h.Branch); err != nil {
			return nil, err
		}
		local, err := a.store.LatestCheckpoints(ctx, r.SpaceID, h.Branch, 1)
		if err != nil {
			return nil, err
		}
		if len(local) == 1 {
			base, err := a.syncBase(ctx, r.SpaceID, local[0].ID, h.CheckpointID)
			if err != nil {
				return nil, err
			}
			var baseID *smriti.ID
			if base != nil {
				baseID = &base.ID
			}
			if d.Ahead, err = a.store.AheadOf(ctx, local[0].ID, baseID); err != nil {
				return nil, err
			}
		}
		out = append(out, d)
	}
	return out, nil
}

// syncBase is the newest checkpoint in both local's history and the
// (stored or fetched) head's: local itself when the head descends from it.
func (a *App) syncBase(ctx context.Context, space, local, head smriti.ID) (*smriti.Checkpoint, error) {
	frontier, _, err := a.store.StagedFrontier(ctx, space, head)
	if err != nil {
		return nil, err
	}
	var best *smriti.Checkpoint
	for _, f := range frontier {
		c, err := a.store.CommonAncestor(ctx, local, f)
		if err != nil {
			return nil, err
		}
		if c != nil && (best == nil || c.LogPos > best.LogPos) {
			best = c
		}
	}
	return best, nil
}
