package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"smriti"
	"smriti/portability"
	"smriti/remote"
)

// SyncRefs answers the other side of a fetch or push: the space's branch
// heads and its turn cursor.
func (a *App) SyncRefs(ctx context.Context, space smriti.ID) ([]remote.Head, int64, error) {
	return a.store.SyncHeads(ctx, space)
}

// SyncExport writes the answer to a fetch, a gzip'd sync stream, to w. The
// space is read once, from one snapshot: its records pass the exit guard
// (see exitGuard) on their way into a spool file, and the stream is copied
// to w only when all of them have, so a refusal comes before w's first
// byte.
func (a *App) SyncExport(ctx context.Context, space smriti.ID, want remote.Want, w io.Writer) error {
	return spooled(w, "fetch", func(spool io.Writer) error {
		sw, err := portability.NewSyncWriter(spool)
		if err != nil {
			return fmt.Errorf("fetch: %w", err)
		}
		if err := a.store.SyncExport(ctx, space, want, a.exitGuard(ctx, space, "fetch answer", sw)); err != nil {
			return err
		}
		if err := sw.Close(); err != nil {
			return fmt.Errorf("fetch: %w", err)
		}
		return nil
	})
}

// ReceivePush stores a pushed sync stream (remote.Store.ApplyPush).
func (a *App) ReceivePush(ctx context.Context, space smriti.ID, push remote.Push, body io.Reader) (remote.Counts, error) {
	rd, err := portability.NewSyncReader(body)
	if err != nil {
		return remote.Counts{}, err
	}
	if rd.Space().ID != space {
		return remote.Counts{}, smriti.Errorf(smriti.EUNPROCESSABLE, "the pushed records are of space %s, not %s", rd.Space().ID, space)
	}
	return a.store.ApplyPush(ctx, space, push, rd)
}

// peer reaches a remote (EUNAVAILABLE when this server was built without a
// way to reach it).
func (a *App) peer(r *remote.Remote) (remote.Peer, error) {
	return a.dialURL(r.URL, r.Token)
}

// peerError names the remote in an error its server (or the way to it)
// gave, keeping the code; one that never reached it says what to check.
func peerError(r *remote.Remote, err error) error {
	var e *smriti.Error
	if err == nil || !errors.As(err, &e) {
		return err
	}
	if e.Code == smriti.EUNAVAILABLE {
		return smriti.Errorf(smriti.EUNAVAILABLE, "cannot reach remote %s at %s; check it is up and the URL is right (smriti remote show %s)", r.Name, r.URL, r.Name)
	}
	out := *e
	out.Message = fmt.Sprintf("remote %s: %s", r.Name, e.Message)
	if m, ok := e.Data.(map[string]any); ok {
		cp := map[string]any{}
		for k, v := range m {
			cp[k] = v
		}
		cp["message"] = out.Message
		out.Data = cp
	}
	return &out
}

// FetchResult is what a fetch brought.
type FetchResult struct {
	Remote     string
	Staged     remote.Counts
	Heads      []remote.Head
	Divergence []remote.Divergence
}

// Fetch brings what this copy lacks from a remote — verified record by
// record — and moves only the remote-tracking heads. Run again, it writes
// nothing; cut off, it keeps what it verified and the next fetch resumes.
func (a *App) Fetch(ctx context.Context, space smriti.ID, name string) (*FetchResult, error) {
	r, err := a.store.Remote(ctx, space, name)
	if err != nil {
		return nil, err
	}
	peer, err := a.peer(r)
	if err != nil {
		return nil, err
	}
	want, err := a.haves(ctx, r)
	if err != nil {
		return nil, err
	}
	body, err := peer.Fetch(ctx, r.RemoteSpaceID, want)
	if err != nil {
		return nil, peerError(r, err)
	}
	defer body.Close()
	rd, err := portability.NewSyncReader(body)
	if err != nil {
		return nil, err
	}
	if rd.Space().ID != r.RemoteSpaceID {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "remote %s answered with space %s, not %s", name, rd.Space().ID, r.RemoteSpaceID)
	}
	staged, err := a.store.StageRecords(ctx, space, name, rd)
	if err != nil {
		return nil, err
	}
	end := rd.End()
	if end == nil {
		return nil, smriti.Errorf(smriti.EINVALID, "the fetch from %s ended before its end record; run it again to resume", name)
	}
	heads := make([]remote.Head, 0, len(end.Heads))
	for _, h := range end.Heads {
		id, err := smriti.ParseID("checkpoint_id", h.CheckpointID)
		if err != nil {
			return nil, err
		}
		heads = append(heads, remote.Head{Branch: h.Branch, CheckpointID: id, Hash: h.CommitHash})
	}
	cursor := end.Cursor
	if err := a.store.SetRemoteHeads(ctx, space, name, heads, &cursor, nil); err != nil {
		return nil, err
	}
	st, err := a.ShowRemote(ctx, space, name)
	if err != nil {
		return nil, err
	}
	return &FetchResult{Remote: name, Staged: staged, Heads: heads, Divergence: st.Divergence}, nil
}

// haves names what this copy has for the remote to leave out: the local
// branch heads and the remote-tracking heads (a store holds every ancestor
// of what it holds, staged records included).
func (a *App) haves(ctx context.Context, r *remote.Remote) (remote.Want, error) {
	local, _, err := a.store.SyncHeads(ctx, r.SpaceID)
	if err != nil {
		return remote.Want{}, err
	}
	want := remote.Want{Haves: []string{}, Branches: []string{}, Since: r.FetchCursor}
	seen := map[string]bool{}
	for _, hs := range [][]remote.Head{local, r.Heads} {
		for _, h := range hs {
			if !seen[h.Hash] && len(want.Haves) < remote.MaxHaves {
				seen[h.Hash] = true
				want.Haves = append(want.Haves, h.Hash)
			}
		}
	}
	return want, nil
}

// FetchAll fetches every remote of every space on this server, each as the
// space's owner, and returns the failures (a remote that is down does not
// stop the others). It moves no local branch.
func (a *App) FetchAll(ctx context.Context) []error {
	refs, err := a.store.AllRemotes(ctx)
	if err != nil {
		return []error{err}
	}
	var errs []error
	for _, r := range refs {
		if ctx.Err() != nil {
			break
		}
		if _, err := a.Fetch(smriti.WithUser(ctx, r.Owner), r.SpaceID, r.Name); err != nil {
			errs = append(errs, fmt.Errorf("space %s, remote %s: %w", r.SpaceID, r.Name, err))
		}
	}
	return errs
}

// FetchEvery runs FetchAll every interval until ctx ends, handing each
// failure to report; it keeps remote-tracking heads fresh so briefs can say
// "behind", and never moves a local branch.
func (a *App) FetchEvery(ctx context.Context, every time.Duration, report func(error)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		for _, err := range a.FetchAll(ctx) {
			if report != nil && ctx.Err() == nil {
				report(err)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
