package httpapi

import (
	"net/http"
	"slices"
	"strings"

	"smriti"
	"smriti/intelligence"
	"smriti/internal/nonnil"
	"smriti/wire"
)

// itemRefDoc documents an item_id path parameter that also takes an
// item version's name.
const itemRefDoc = "An item id (d-7f3a9c), or an item version's name item@version (d-7f3a9c@3f9a1c2b…): the item id, @ and the hash, or a unique prefix of at least 8 hex digits, of the checkpoint that introduced the version"

func itemOf(it smriti.Item) wire.ItemOut {
	return wire.ItemOut{ID: it.ID, Kind: string(it.Kind), Text: it.Text, Key: smriti.ItemKey(it.Text), Status: wire.ItemStatus(it.Status), Origin: it.Origin,
		Supersedes: nonnil.Slice(it.Supersedes), Change: it.Change, Refs: nonnil.Slice(it.Refs), Version: wire.VersionOut(&it)}
}

func itemsOut(items []smriti.Item) []wire.ItemOut { return nonnil.Convert(items, itemOf) }

func (s *Server) itemRoutes() []route {
	return []route{
		{method: "GET", path: "/api/v5/spaces/{space_id}/items/{item_id}", summary: "An item's history: introduced, changed, resolved, retracted or superseded, with the turns and quotes", tag: "checkpoints",
			paths: map[string]string{"item_id": itemRefDoc},
			description: "item_id is an item id (the answer's item is its newest version) or an item version's name, item@version: the item id and the hash, or a prefix of at least 8 hex digits of it, of the checkpoint that introduced the version (the answer's item is that version, and the history is the item's whole history). " +
				"A name resolves the same on every copy of the space. A malformed name is 400; a version the space does not hold is 404, naming the item's newest versions.",
			out: wire.ItemHistoryOut{}, status: 200, handle: s.itemHistory},
		{method: "GET", path: "/api/v5/turns/{turn_id}/context", summary: "What the model was given for an assistant turn: mode, checkpoints and hashes, turn range, dropped turns, tokens", tag: "chat",
			out: wire.TurnContextOut{}, status: 200, handle: s.turnContext},
		{method: "GET", path: "/api/v5/spaces/{space_id}/state", summary: "The state as of a checkpoint or a time: that checkpoint's live items, each with the checkpoints that began and ended its span on the line of work", tag: "checkpoints",
			out: wire.StateAsOfOut{}, status: 200, handle: s.stateAsOf, mustQuery: []string{"as_of"}, query: map[string]string{
				"as_of":  "a checkpoint id or hash prefix (at least 7 characters), or a time: RFC 3339 or a date YYYY-MM-DD (its end, UTC) (required)",
				"branch": "the line of work for a time (default main); a checkpoint's line is its own branch"}},
		{method: "GET", path: "/api/v5/checkpoints/{commit_id}/items", summary: "A checkpoint's items with their ids, origins and what the checkpoint changed", tag: "checkpoints",
			out: []wire.ItemOut{}, status: 200, handle: s.checkpointItems, query: map[string]string{"cites_code": citesCodeQuery}},
	}
}

func (s *Server) itemHistory(w http.ResponseWriter, r *http.Request) error {
	space, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	at, err := s.app.Item(r.Context(), space, strings.TrimSpace(r.PathValue("item_id")))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, itemHistoryOf(at))
	return nil
}

func itemHistoryOf(at *smriti.ItemAt) wire.ItemHistoryOut {
	evs, itemID := at.History, at.ItemID
	out := wire.ItemHistoryOut{History: []wire.ItemEventOut{}}
	for i := range evs {
		ev := &evs[i]
		e := wire.ItemEventOut{CheckpointID: ev.CheckpointID, CommitHash: ev.CommitHash, BranchName: ev.BranchName, CreatedAt: ev.CreatedAt,
			Merge: ev.Merge, Event: ev.KindFor(itemID), ItemID: ev.Item.ID, Text: ev.Item.Text,
			Status: wire.ItemStatus(ev.Item.Status), Origin: ev.Item.Origin}
		if ev.Item.Change != nil {
			e.Change = *ev.Item.Change
		}
		if name := ev.VersionName(); name != "" {
			e.Version = &name
		}
		out.History = append(out.History, e)
	}
	if at.Version != nil {
		v := at.Version.Item
		v.Version = at.Version.CommitHash
		out.Item, out.Version, out.Latest = itemOf(v), at.Version.VersionName(), at.Latest()
	}
	out.Validity = wire.ValidityOut(evs, itemID)
	return out
}

func (s *Server) checkpointItems(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "commit_id")
	if err != nil {
		return err
	}
	citing, err := queryBool(r, "cites_code")
	if err != nil {
		return err
	}
	items, err := s.app.CheckpointItems(r.Context(), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, itemsOut(citingCode(items, citing)))
	return nil
}

// citesCodeQuery documents ?cites_code=.
const citesCodeQuery = "true: only the items that cite code (what a client checks against its work tree)"

// citingCode is items, or when only is set, those of them that cite code.
func citingCode(items []smriti.Item, only bool) []smriti.Item {
	if !only {
		return items
	}
	return slices.DeleteFunc(slices.Clone(items), func(it smriti.Item) bool { return len(it.Refs) == 0 })
}

// withItems adds the items view to a checkpoint's wire form when the
// request asks for it (?items=true).
func (s *Server) withItems(r *http.Request, c *smriti.Checkpoint, out *wire.Commit) error {
	want, err := queryBool(r, "items")
	if err != nil || !want {
		return err
	}
	citing, err := queryBool(r, "cites_code")
	if err != nil {
		return err
	}
	items := c.Items
	if items == nil {
		if items, err = s.app.CheckpointItems(r.Context(), c.ID); err != nil {
			return err
		}
	}
	v := itemsOut(citingCode(items, citing))
	out.Items = &v
	return nil
}

func (s *Server) turnContext(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "turn_id")
	if err != nil {
		return err
	}
	t, err := s.app.Turn(r.Context(), id)
	if err != nil {
		return err
	}
	if t.Role != smriti.RoleAssistant {
		return smriti.Errorf(smriti.ENOTFOUND, "Turn %s is a %s turn; only assistant turns record the context they were made from", id, t.Role)
	}
	m := intelligence.ReplyMetaOf(t)
	writeJSON(w, http.StatusOK, wire.TurnContextOut{TurnID: t.ID, SessionID: t.SessionID, Seq: t.Seq, Provider: t.Provider, Model: t.Model,
		Mode: m.Context.Mode, CheckpointIDs: nonnil.Slice(m.Context.CheckpointIDs), CheckpointHashes: nonnil.Slice(m.Context.CommitHashes),
		FromSeq: m.Context.FromSeq, ToSeq: m.Context.ToSeq, DroppedTurns: m.Context.DroppedTurns,
		InputTokens: m.Usage.InputTokens, OutputTokens: m.Usage.OutputTokens})
	return nil
}

func (s *Server) stateAsOf(w http.ResponseWriter, r *http.Request) error {
	space, err := pathID(r, "space_id")
	if err != nil {
		return err
	}
	ref := r.URL.Query().Get("as_of")
	st, err := s.app.StateAsOf(r.Context(), space, ref, r.URL.Query().Get("branch"))
	if err != nil {
		return err
	}
	out := wire.StateAsOfOut{SpaceID: space, Branch: st.Branch, AsOf: ref, Checkpoint: *wire.CheckpointMarkOf(st.Checkpoint),
		Head: *wire.CheckpointMarkOf(st.Head), Items: []wire.ItemAsOfOut{}}
	for _, sp := range st.Items {
		out.Items = append(out.Items, wire.ItemAsOfOut{ItemOut: itemOf(sp.Item), ValidFrom: *wire.CheckpointMarkOf(sp.ValidFrom), ValidTo: wire.CheckpointMarkOf(sp.ValidTo)})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
