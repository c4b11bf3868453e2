package cli

import (
	"context"
	"fmt"

	"smriti/client"
	"smriti/wire"
)

// proposeCheckpoint saves the content `checkpoint create --propose` would
// have committed as a pending proposal, on the same base.
func proposeCheckpoint(ctx context.Context, env *Env, c *client.Client, sp *wire.Repo, session string, p *checkpointPayload, git *wire.GitStateIn, asJSON bool) error {
	req := wire.ProposalRequest{ContentFields: p.ContentFields, Source: "cli", AuthorAgent: p.AuthorAgent, ProjectRoot: p.ProjectRoot,
		Items: p.Items, Model: p.Model, BaseCheckpointID: p.BaseCheckpointID, Git: git}
	if session != "" {
		req.SessionID = &session
	}
	out, err := c.SaveProposal(ctx, sp.ID, req)
	if err != nil {
		return err
	}
	if asJSON {
		return printJSON(env.Stdout, out)
	}
	fmt.Fprintf(env.Stdout, "Saved proposal %s %q; it waits for review: smriti proposals show %s\n", shortID(out.ID), out.Title, shortID(out.ID))
	return nil
}
