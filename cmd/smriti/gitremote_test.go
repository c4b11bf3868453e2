package main

import (
	"context"
	"path/filepath"
	"testing"

	"smriti"
	"smriti/account"
	"smriti/app"
	"smriti/provider"
	"smriti/remote"
	"smriti/store"
)

// TestGitRemotesNeedTheOperatorInAuthMode: git runs with the server's
// files and credentials, so a server people sign in to refuses a git
// remote (503, saying how its operator allows them) until
// SMRITI_GIT_REMOTES=on; a server without sign-in takes one.
func TestGitRemotesNeedTheOperatorInAuthMode(t *testing.T) {
	ctx := context.Background()
	t.Setenv("SMRITI_GIT_CACHE", filepath.Join(t.TempDir(), "git-cache"))
	db, err := store.Open(ctx, filepath.Join(t.TempDir(), "smriti.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cfg, err := provider.Load(provider.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	auth := app.GateConfig{Roles: func(context.Context, smriti.ID) (account.Role, error) { return account.RoleOwner, nil }}
	add := func(gate app.GateConfig) error {
		a := apiConfig(db, provider.New(cfg), nil, nil, nil, gate).App
		_, err := a.AddRemote(ctx, remote.Create{SpaceID: smriti.NewID(), Name: "origin", URL: "/srv/git/notes.git"})
		return err
	}
	err = add(auth)
	if smriti.ErrorCode(err) != smriti.EUNAVAILABLE || smriti.ErrorMessage(err) != "this server does not reach git repositories: a server people sign in to reaches them only when its operator sets SMRITI_GIT_REMOTES=on; use a Smriti server's URL instead" {
		t.Fatalf("auth mode: %v", err)
	}
	// Allowed, the remote gets as far as the space, which does not exist.
	t.Setenv("SMRITI_GIT_REMOTES", "on")
	if err := add(auth); smriti.ErrorCode(err) != smriti.ENOTFOUND {
		t.Fatalf("auth mode with SMRITI_GIT_REMOTES=on: %v; want the missing space's ENOTFOUND", err)
	}
	t.Setenv("SMRITI_GIT_REMOTES", "")
	if err := add(app.GateConfig{}); smriti.ErrorCode(err) != smriti.ENOTFOUND {
		t.Fatalf("without sign-in: %v; want the missing space's ENOTFOUND", err)
	}
}
