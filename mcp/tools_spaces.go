package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"smriti"
	"smriti/render"
	"smriti/skills"
)

// registerSpaces adds the tools over spaces and the skill pack.
func (t *tools) registerSpaces(s *sdk.Server) {
	add(t, s, "smriti_list_spaces", "List the spaces.", readOnly, func(ctx context.Context, _ noArgs) (string, error) {
		sp, err := t.ops.AllSpaces(ctx)
		if err != nil {
			return "", err
		}
		return render.RenderSpaces(sp, "smriti_create_space"), nil
	})
	add(t, s, "smriti_create_space", "Create a space.", additive, func(ctx context.Context, in createSpaceIn) (string, error) {
		if strings.TrimSpace(in.Name) == "" {
			return "", smriti.Errorf(smriti.EUNPROCESSABLE, "name must not be empty")
		}
		sp, err := t.ops.CreateSpace(ctx, smriti.SpaceCreate{Name: in.Name, Description: in.Description})
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("Created space `%s`: %s\n", sp.ID, sp.Name), nil
	})
	add(t, s, "smriti_delete_space", "Delete a space and everything in it.", destructive,
		func(ctx context.Context, in spaceIn) (string, error) {
			sp, err := t.space(ctx, in.Space)
			if err != nil {
				return "", err
			}
			cps, err := t.ops.AllCheckpoints(ctx, sp.ID, "")
			if err != nil {
				return "", err
			}
			if err := t.ops.DeleteSpace(ctx, sp.ID); err != nil {
				return "", err
			}
			return fmt.Sprintf("Deleted space '%s' and its %d checkpoint(s).\n", sp.Name, len(cps)), nil
		})
	add(t, s, "smriti_install_skill", "The Smriti skill pack for a host and where to put it; writes no file.", readOnly,
		func(ctx context.Context, in installSkillIn) (string, error) {
			tg, err := skills.Lookup(in.Target)
			if err != nil {
				return "", smriti.Errorf(smriti.EUNPROCESSABLE, "%v", err)
			}
			body, err := skills.Render(in.Target)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("# Smriti skill pack for %s\n\n**Suggested destination (relative to project root):** `%s`\n\n"+
				"Write the block below to that file with your file tools; install again when the version changes.\n\n```markdown\n%s```\n",
				tg.DisplayName, tg.Destination, body), nil
		})
}
