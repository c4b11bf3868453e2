package storetest

import (
	"context"
	"testing"
	"time"

	"smriti"
	"smriti/account"
	"smriti/contract"
	"smriti/coord"
	"smriti/credential"
	"smriti/store"
)

// accountCases run on both engines: users, tokens, browser sessions and the
// one access rule (space membership).
var accountCases = []struct {
	name string
	fn   func(t *testing.T, s *store.Store)
}{
	{"UsersUniqueAndDisabled", testUsers},
	{"TokensRevokedOrExpiredFail", testTokens},
	{"BrowserSessionsExpireAndEnd", testBrowserSessions},
	{"MembersSeeTheirSpacesOnly", testMembership},
	{"OnlyTheOwnerManagesMembersAndDeletes", testMemberRules},
	{"ViewerChangesNothing", testViewerWrites},
}

func newUser(t *testing.T, s *store.Store, name string) (*account.User, context.Context) {
	t.Helper()
	u := Get(s.CreateUser(context.Background(), name, "")).Must(t)
	return u, smriti.WithUser(context.Background(), u.ID)
}

func testUsers(t *testing.T, s *store.Store) {
	ctx := context.Background()
	hash := "$argon2id$v=19$m=65536,t=3,p=2$c2FsdA$a2V5"
	u := Get(s.CreateUser(ctx, "alice", hash)).Must(t)
	_, err := s.CreateUser(ctx, "alice", hash)
	wantCode(t, err, smriti.ECONFLICT)
	_, err = s.CreateUser(ctx, "Bad Name", hash)
	wantCode(t, err, smriti.EUNPROCESSABLE)
	got, gotHash, err := s.UserByName(ctx, "alice")
	if err != nil || got.ID != u.ID || gotHash != hash || got.Disabled {
		t.Fatalf("UserByName = %+v %q %v", got, gotHash, err)
	}
	_, _, err = s.UserByName(ctx, "nobody")
	wantCode(t, err, smriti.ENOTFOUND)
	all := Get(s.Users(ctx)).Must(t)
	if len(all) != 2 || all[0].Username != "alice" || all[1].Username != "local" || all[1].ID != smriti.LocalUserID {
		t.Fatalf("users = %+v, want alice and the built-in local user", all)
	}
	off := Get(s.SetUserDisabled(ctx, "alice", true)).Must(t)
	if !off.Disabled {
		t.Fatalf("disabled = %v", off.Disabled)
	}
	_, err = s.SetUserDisabled(ctx, "nobody", true)
	wantCode(t, err, smriti.ENOTFOUND)
}

func testTokens(t *testing.T, s *store.Store) {
	ctx := context.Background()
	u, _ := newUser(t, s, "tok")
	now := s.Now()
	mk := func(scope account.Scope, expires *time.Time) (*account.APIToken, string) {
		secret, hash, err := credential.NewSecret()
		if err != nil {
			t.Fatal(err)
		}
		tok := &account.APIToken{ID: smriti.NewID(), UserID: u.ID, Name: string(scope), Scope: scope, CreatedAt: now, ExpiresAt: expires}
		if err := s.CreateToken(ctx, tok, hash); err != nil {
			t.Fatal(err)
		}
		return tok, secret
	}
	live, liveSecret := mk(account.ScopeRead, nil)
	p := Get(s.TokenPrincipal(ctx, credential.HashSecret(liveSecret), now)).Must(t)
	if p.UserID != u.ID || p.Scope != account.ScopeRead || p.TokenID == nil || *p.TokenID != live.ID || p.Username != "tok" {
		t.Fatalf("principal = %+v", p)
	}
	_, err := s.TokenPrincipal(ctx, credential.HashSecret("smriti_unknown"), now)
	wantCode(t, err, smriti.EUNAUTHORIZED)

	soon := now.Add(time.Hour)
	_, expSecret := mk(account.ScopeWrite, &soon)
	Get(s.TokenPrincipal(ctx, credential.HashSecret(expSecret), now)).Must(t)
	_, err = s.TokenPrincipal(ctx, credential.HashSecret(expSecret), soon)
	wantCode(t, err, smriti.EUNAUTHORIZED)

	revoked := Get(s.RevokeToken(ctx, u.ID, live.ID)).Must(t)
	if revoked.RevokedAt == nil {
		t.Fatal("revoked_at not set")
	}
	_, err = s.TokenPrincipal(ctx, credential.HashSecret(liveSecret), now)
	wantCode(t, err, smriti.EUNAUTHORIZED)
	_, err = s.RevokeToken(ctx, smriti.NewID(), live.ID) // not this user's token
	wantCode(t, err, smriti.ENOTFOUND)

	list := Get(s.Tokens(ctx, u.ID)).Must(t)
	if len(list) != 2 {
		t.Fatalf("tokens = %d, want 2", len(list))
	}
	_, adminSecret := mk(account.ScopeAdmin, nil)
	Get(s.SetUserDisabled(ctx, "tok", true)).Must(t)
	_, err = s.TokenPrincipal(ctx, credential.HashSecret(adminSecret), now)
	wantCode(t, err, smriti.EUNAUTHORIZED)
}

func testBrowserSessions(t *testing.T, s *store.Store) {
	ctx := context.Background()
	u, _ := newUser(t, s, "web")
	now := s.Now()
	secret, hash, err := credential.NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.CreateBrowserSession(ctx, hash, u.ID, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	p := Get(s.SessionPrincipal(ctx, credential.HashSecret(secret), now)).Must(t)
	if p.UserID != u.ID || p.Scope != account.ScopeAdmin || p.TokenID != nil {
		t.Fatalf("principal = %+v", p)
	}
	_, err = s.SessionPrincipal(ctx, hash, now.Add(time.Hour))
	wantCode(t, err, smriti.EUNAUTHORIZED)
	if err := s.DeleteBrowserSession(ctx, hash); err != nil {
		t.Fatal(err)
	}
	_, err = s.SessionPrincipal(ctx, hash, now)
	wantCode(t, err, smriti.EUNAUTHORIZED)

	_, hash2, _ := credential.NewSecret()
	if err := s.CreateBrowserSession(ctx, hash2, u.ID, now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	Get(s.SetUserDisabled(ctx, "web", true)).Must(t)
	_, err = s.SessionPrincipal(ctx, hash2, now)
	wantCode(t, err, smriti.EUNAUTHORIZED)
}

func testMembership(t *testing.T, s *store.Store) {
	_, alice := newUser(t, s, "owner")
	bob, bobCtx := newUser(t, s, "bob")
	sp := newSpace(t, alice, s)
	se := newSession(t, alice, s, sp)
	send(t, alice, s, se, "hello")
	cp := commit(t, alice, s, sp, se, "one")

	if r := Get(s.SpaceRole(alice, cp.ID)).Must(t); r != account.RoleOwner {
		t.Fatalf("creator's role = %q", r)
	}
	for _, id := range []smriti.ID{sp.ID, se.ID, cp.ID, smriti.NewID()} {
		_, err := s.SpaceRole(bobCtx, id)
		wantCode(t, err, smriti.ENOTFOUND)
	}
	_, err := s.Space(bobCtx, sp.ID)
	wantCode(t, err, smriti.ENOTFOUND)
	_, err = s.Turns(bobCtx, se.ID, contract.TurnQuery{})
	wantCode(t, err, smriti.ENOTFOUND)

	m := Get(s.SetMember(alice, sp.ID, bob.ID, account.RoleViewer)).Must(t)
	if m.Role != account.RoleViewer || m.Username != "bob" || m.UserID != bob.ID {
		t.Fatalf("member = %+v", m)
	}
	if got := Get(s.Space(bobCtx, sp.ID)).Must(t); got.ID != sp.ID {
		t.Fatalf("viewer sees %s", got.ID)
	}
	if got := Get(s.Checkpoint(bobCtx, cp.ID)).Must(t); got.ID != cp.ID {
		t.Fatalf("viewer sees checkpoint %s", got.ID)
	}
	if turns := Get(s.Turns(bobCtx, se.ID, contract.TurnQuery{})).Must(t); len(turns) != 2 {
		t.Fatalf("viewer sees %d turns, want 2", len(turns))
	}
	list, _, err := s.Spaces(bobCtx, smriti.Page{})
	if err != nil || len(list) != 1 || list[0].ID != sp.ID {
		t.Fatalf("viewer's spaces = %v, %v", list, err)
	}
	for _, id := range []smriti.ID{sp.ID, se.ID, cp.ID} {
		if r := Get(s.SpaceRole(bobCtx, id)).Must(t); r != account.RoleViewer {
			t.Fatalf("role via %s = %q", id, r)
		}
	}
	Get(s.SetMember(alice, sp.ID, bob.ID, account.RoleEditor)).Must(t)
	if r := Get(s.SpaceRole(bobCtx, se.ID)).Must(t); r != account.RoleEditor {
		t.Fatalf("role after change = %q", r)
	}
	members := Get(s.Members(alice, sp.ID)).Must(t)
	if len(members) != 2 || members[0].Role != account.RoleOwner || members[1].UserID != bob.ID {
		t.Fatalf("members = %+v", members)
	}
	if err := s.RemoveMember(alice, sp.ID, bob.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.Space(bobCtx, sp.ID)
	wantCode(t, err, smriti.ENOTFOUND)
	wantCode(t, s.RemoveMember(alice, sp.ID, bob.ID), smriti.ENOTFOUND)
	_, err = s.SetMember(alice, sp.ID, smriti.NewID(), account.RoleViewer)
	wantCode(t, err, smriti.ENOTFOUND)
}

func testMemberRules(t *testing.T, s *store.Store) {
	alice, aliceCtx := newUser(t, s, "alice")
	bob, bobCtx := newUser(t, s, "bob")
	carol, carolCtx := newUser(t, s, "carol")
	sp := newSpace(t, aliceCtx, s)
	Get(s.SetMember(aliceCtx, sp.ID, bob.ID, account.RoleEditor)).Must(t)

	_, err := s.SetMember(bobCtx, sp.ID, carol.ID, account.RoleViewer)
	wantCode(t, err, smriti.EFORBIDDEN)
	_, err = s.Members(bobCtx, sp.ID)
	wantCode(t, err, smriti.EFORBIDDEN)
	_, err = s.Members(carolCtx, sp.ID)
	wantCode(t, err, smriti.ENOTFOUND)
	_, err = s.SetMember(carolCtx, sp.ID, carol.ID, account.RoleOwner)
	wantCode(t, err, smriti.ENOTFOUND)
	_, err = s.SetMember(aliceCtx, sp.ID, alice.ID, account.RoleViewer)
	wantCode(t, err, smriti.ECONFLICT)
	wantCode(t, s.RemoveMember(aliceCtx, sp.ID, alice.ID), smriti.ECONFLICT)

	wantCode(t, s.DeleteSpace(bobCtx, sp.ID), smriti.EFORBIDDEN)
	wantCode(t, s.DeleteSpace(carolCtx, sp.ID), smriti.ENOTFOUND)
	if err := s.DeleteSpace(aliceCtx, sp.ID); err != nil {
		t.Fatal(err)
	}
	_, err = s.Space(bobCtx, sp.ID)
	wantCode(t, err, smriti.ENOTFOUND)
}

// testViewerWrites: every write method refuses a viewer with EFORBIDDEN (the
// same rule the HTTP and MCP adapters meet) and the space is unchanged; an
// editor may write.
func testViewerWrites(t *testing.T, s *store.Store) {
	_, alice := newUser(t, s, "alice")
	vic, vicCtx := newUser(t, s, "vic")
	sp := newSpace(t, alice, s)
	se := newSession(t, alice, s, sp)
	send(t, alice, s, se, "hello")
	cp := commit(t, alice, s, sp, se, "one")
	claim := get3(s.CreateClaim(alice, claimIn(sp))).Must(t)
	Get(s.SetMember(alice, sp.ID, vic.ID, account.RoleViewer)).Must(t)
	forbidden := func(what string, err error) {
		t.Helper()
		if smriti.ErrorCode(err) != smriti.EFORBIDDEN || err.Error() != "a viewer of this space may not change it" {
			t.Errorf("viewer %s: %v, want EFORBIDDEN", what, err)
		}
	}
	ex := contract.Exchange{SessionID: se.ID, User: contract.TurnWrite{Content: "x"}, Assistant: contract.TurnWrite{Content: "y"}}
	_, err := s.AppendExchange(vicCtx, ex)
	forbidden("send", err)
	ex.IdempotencyKey = "k"
	_, err = s.AppendExchange(vicCtx, ex)
	forbidden("send with a key", err)
	_, err = s.CommitCheckpoint(vicCtx, smriti.CheckpointCommit{SpaceID: sp.ID, SessionID: se.ID, Content: smriti.Content{Message: "m"}})
	forbidden("commit", err)
	_, err = s.CreateCheckpoint(vicCtx, smriti.CheckpointCreate{SpaceID: sp.ID, ParentID: &cp.ID, Content: smriti.Content{Message: "m"}})
	forbidden("create checkpoint", err)
	forbidden("delete checkpoint", s.DeleteCheckpoint(vicCtx, cp.ID, true))
	_, err = s.AddNote(vicCtx, cp.ID, smriti.NoteCreate{Author: "v", Text: "t", Kind: "note"})
	forbidden("note", err)
	_, err = s.CreateSession(vicCtx, smriti.SessionCreate{SpaceID: &sp.ID, Provider: "mock", Model: "m"})
	forbidden("create session", err)
	forbidden("delete session", s.DeleteSession(vicCtx, se.ID))
	_, err = s.SetSessionTitle(vicCtx, se.ID, "mine")
	forbidden("title", err)
	_, err = s.SetMount(vicCtx, se.ID, &smriti.Mount{CheckpointID: cp.ID, BaseSeq: -1})
	forbidden("mount", err)
	_, err = s.ForkSession(vicCtx, smriti.ForkCreate{SpaceID: sp.ID, CheckpointID: cp.ID, Provider: "mock", Model: "m"})
	forbidden("fork", err)
	_, err = s.SetBranchDisposition(vicCtx, sp.ID, "main", smriti.DispositionAbandoned)
	forbidden("disposition", err)
	_, err = s.SetProjectRoot(vicCtx, sp.ID, "/evil")
	forbidden("project root", err)
	_, _, err = s.CreateClaim(vicCtx, claimIn(sp))
	forbidden("claim", err)
	_, err = s.FinishClaim(vicCtx, claim.ID, coord.ClaimDone)
	forbidden("finish claim", err)
	loose := Get(s.CreateSession(vicCtx, smriti.SessionCreate{Provider: "mock", Model: "m"})).Must(t)
	_, err = s.AttachSession(vicCtx, loose.ID, sp.ID)
	forbidden("attach into the space", err)

	if turns := Get(s.Turns(alice, se.ID, contract.TurnQuery{})).Must(t); len(turns) != 2 {
		t.Fatalf("turns = %d, want 2", len(turns))
	}
	if got := Get(s.Session(alice, se.ID)).Must(t); got.Title != se.Title || got.Mount != nil {
		t.Fatalf("session changed: %+v", got)
	}
	Get(s.SetMember(alice, sp.ID, vic.ID, account.RoleEditor)).Must(t)
	send(t, vicCtx, s, se, "from the editor")
	Get(s.AddNote(vicCtx, cp.ID, smriti.NoteCreate{Author: "v", Text: "t", Kind: "note"})).Must(t)
}
