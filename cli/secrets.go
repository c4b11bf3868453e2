package cli

import (
	"encoding/json"
	"fmt"
	"smriti/secretlog"

	"github.com/spf13/cobra"

	"smriti"
)

func newSecretsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "secrets",
		Short: "Find, purge and allow secrets (new writes are redacted as they arrive)",
	}
	cmd.AddCommand(newSecretsScanCmd(), newSecretsPurgeCmd(), newSecretsAllowCmd(), newSecretsAllowlistCmd(), newSecretsDisallowCmd())
	return cmd
}

func newSecretsScanCmd() *cobra.Command {
	var space string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "scan",
		Short: "List every stored turn, checkpoint, note, claim and proposal that holds a secret: where it is and which rule found it (never the value)",
		Example: `  smriti secrets scan
  smriti secrets scan --space demo --json`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			env := envOf(cmd)
			ctx := cmd.Context()
			c := env.Client()
			var id *smriti.ID
			if space != "" {
				sp, err := resolveSpace(ctx, c, space)
				if err != nil {
					return err
				}
				id = &sp.ID
			}
			// Findings are printed as they arrive: one JSON object per line
			// with --json, else one line each.
			var werr error
			read, err := c.ScanSecrets(ctx, id, func(f secretlog.StoredSecret) {
				if werr != nil {
					return
				}
				if asJSON {
					var line []byte
					if line, werr = json.Marshal(f); werr == nil {
						_, werr = env.Stdout.Write(append(line, '\n'))
					}
					return
				}
				_, werr = fmt.Fprintf(env.Stdout, "%s %s %s: %s (%s, fingerprint %s)\n", f.SpaceID.String()[:8], f.Kind, f.ID, f.Field, f.Rule, f.Fingerprint)
			})
			if err != nil {
				return err
			}
			if werr != nil {
				return werr
			}
			fmt.Fprintf(env.Stderr, "scanned %d space(s): %d checkpoint(s), %d session(s), %d turn(s), %d claim(s), %d proposal(s); %d secret(s) found\n",
				read.Spaces, read.Checkpoints, read.Sessions, read.Turns, read.Claims, read.Proposals, read.Found)
			return nil
		},
	}
	cmd.Flags().StringVar(&space, "space", "", "only this space (name, slug or id; default every space you can see)")
	jsonFlag(cmd, &asJSON)
	return cmd
}
