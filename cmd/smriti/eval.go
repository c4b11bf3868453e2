package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"smriti/app"
	"smriti/client"
	"smriti/eval"
	"smriti/eval/evalrun"
	"smriti/eval/oracle"
	"smriti/gitcli"
	"smriti/httpapi"
	"smriti/intelligence"
	"smriti/provider"
	"smriti/render"
	"smriti/store"
	"smriti/tokenizer"
	"smriti/wire"
)

// evalOptions are `smriti eval`'s flags.
type evalOptions struct {
	provider, model, baseURL string
	scenarios, out, apiURL   string
	asJSON, noBaselines      bool
	chat                     bool
	blind                    string
	window                   int
}

func newEvalCmd() *cobra.Command {
	var o evalOptions
	cmd := &cobra.Command{
		Use:   "eval",
		Short: "Score how well checkpoints keep reasoning state, on the scenarios in eval/scenarios",
		Long: `Run the state-fidelity scenarios (eval/scenarios/*.txtar, built in) against a Smriti
server and score the final state of each against its ground truth: carried-item
recall and precision, items lost, stale and duplicated, merge conflicts found
against expected, isolation leaks, provenance, and the tokens of prime and of
each draft. The same model is then scored on two baselines without
checkpoints: the full transcript cut to the model's window, and an
append-only notes file.

By default the server is started here, on a scratch SQLite database that is
deleted afterwards, with the drafting model as its background provider. The
default model is the deterministic "oracle", which answers drafts only from the
base items and turns the server sends it, so the run is offline and exact;
name a real provider and model (keys from the usual environment variables), or
any OpenAI-compatible server with --base-url (key in SMRITI_GENERIC_API_KEY).
Chat replies come from the offline mock unless --chat: only drafting is scored.`,
		Example: `  smriti eval
  smriti eval --provider openai --model gpt-4o-mini --out report.md
  smriti eval --base-url http://127.0.0.1:11434/v1 --model llama3.1:8b
  smriti eval --api-url http://127.0.0.1:8000 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := runEval(cmd.Context(), o, func(name string) { fmt.Fprintf(cmd.ErrOrStderr(), "eval: %s\n", name) })
			if err != nil {
				return err
			}
			md := rep.Markdown()
			if o.out != "" {
				if err := os.WriteFile(o.out, []byte(md), 0o644); err != nil {
					return err
				}
			}
			if o.asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				if err := enc.Encode(rep); err != nil {
					return err
				}
			} else {
				fmt.Fprint(cmd.OutOrStdout(), md)
			}
			if rep.Overall.Err != "" {
				return fmt.Errorf("a scenario could not be run: %s", rep.Overall.Err)
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.provider, "provider", provider.ProviderOracle, "the drafting provider: oracle, mock, openai, anthropic, openrouter or generic")
	f.StringVar(&o.model, "model", "", "the drafting model (default: the provider's)")
	f.StringVar(&o.baseURL, "base-url", "", "an OpenAI-compatible server's API URL (such as http://127.0.0.1:11434/v1): drafts with the generic provider there")
	f.StringVar(&o.scenarios, "scenarios", "", "a directory of scenario files (*.txtar) to run instead of the published ones (eval/scenarios, built in)")
	f.StringVar(&o.out, "out", "", "also write the markdown report to this file")
	f.StringVar(&o.apiURL, "api-url", "", "run against this server instead of starting one (its own background provider drafts; the baselines use --provider/--model here)")
	f.BoolVar(&o.chat, "chat", false, "answer the conversation's sends with the drafting model too, streamed (default: the offline mock; only drafts are scored)")
	f.BoolVar(&o.noBaselines, "no-baselines", false, "score Smriti only, not the full-context and notes-file baselines")
	f.IntVar(&o.window, "window", 0, "the context window the full-context baseline is cut to, in tokens (default: the model's)")
	f.StringVar(&o.blind, "oracle-blind", "", "blind the oracle, to see the eval fail: base (ignore the base items) or turns (ignore every other user turn)")
	_ = f.MarkHidden("oracle-blind")
	f.BoolVar(&o.asJSON, "json", false, "print the report as JSON")
	return cmd
}

// runEval runs the scenarios of o.scenarios and returns the report.
func runEval(ctx context.Context, o evalOptions, progress func(string)) (*eval.Report, error) {
	var scenarios []*eval.Scenario
	var err error
	if o.scenarios == "" {
		scenarios, err = eval.Published()
	} else {
		scenarios, err = eval.LoadDir(o.scenarios)
	}
	if err != nil {
		return nil, err
	}
	blind := oracle.Blinding(o.blind)
	if blind != oracle.BlindNone && blind != oracle.BlindBase && blind != oracle.BlindTurns {
		return nil, fmt.Errorf("--oracle-blind is base or turns, not %q", o.blind)
	}
	cfg, err := provider.Load(provider.LoadOptions{Getenv: os.Getenv})
	if err != nil {
		return nil, err
	}
	name := strings.ToLower(strings.TrimSpace(o.provider))
	if o.baseURL != "" {
		name = intelligence.ProviderGeneric
		pc := cfg.Providers[name]
		pc.BaseURL = o.baseURL
		if o.model != "" {
			pc.DefaultModel = o.model
		}
		cfg.Providers[name] = pc
	}
	cfg.DefaultProvider, cfg.BackgroundProvider, cfg.BackgroundModel = intelligence.ProviderMock, name, o.model
	metrics := httpapi.NewMetrics()
	providers := provider.New(cfg, provider.WithOracle(oracle.Oracle{Blind: blind}), provider.WithObserver(metrics.ObserveProviderCall))
	bg, model, err := providers.Background()
	if err != nil {
		return nil, err
	}
	window := o.window
	if window <= 0 {
		window = providers.ContextWindow(name, model)
	}

	base := o.apiURL
	if base == "" {
		var stop func()
		if base, stop, err = scratchServer(ctx, providers, metrics); err != nil {
			return nil, err
		}
		defer stop()
	}
	c := client.NewClient(base)
	opts := evalrun.Options{Client: c, Prime: primeTokens, Progress: progress}
	if o.apiURL == "" {
		opts.Background = name
	}
	if o.chat {
		opts.Chat = name
	}
	if !o.noBaselines {
		opts.Model, opts.ModelName, opts.Window = bg, model, window
	}
	rep := &eval.Report{Provider: name, Model: model, Version: version, Window: window, Rows: evalrun.Run(ctx, opts, scenarios)}
	if o.apiURL != "" {
		rep.Provider, rep.Model = "server at "+o.apiURL, "its background model"
	}
	if blind != oracle.BlindNone {
		rep.Provider += " (blind: " + o.blind + ")"
	}
	rep.Finish()
	return rep, nil
}

// scratchServer serves the API on 127.0.0.1 over a new SQLite database in
// a temporary directory; stop closes it and deletes the directory.
func scratchServer(ctx context.Context, providers *provider.Registry, metrics *httpapi.Metrics) (string, func(), error) {
	dir, err := os.MkdirTemp("", "smriti-eval-")
	if err != nil {
		return "", nil, err
	}
	db, err := store.Open(ctx, filepath.Join(dir, "eval.db"), nil)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		db.Close()
		os.RemoveAll(dir)
		return "", nil, err
	}
	coord := &app.Coordinator{Briefs: db, Store: db, Git: gitcli.New(), Root: filepath.Join(dir, "worktrees")}
	hs := &http.Server{Handler: httpapi.New(apiConfig(db, providers, nil, coord, metrics, app.GateConfig{})), ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(ln)
	return "http://" + ln.Addr().String(), func() {
		hs.Close()
		db.Close()
		os.RemoveAll(dir)
	}, nil
}

// primeTokens is what `smriti prime` costs an agent for a space state, in
// o200k tokens (the usage, the compact brief and its token line), counted
// as the server counts it.
func primeTokens(st *wire.SpaceState) int {
	o := render.BriefOptions{Now: time.Now(), Tokens: tokenizer.CountO200K}
	o.Home, _ = os.UserHomeDir()
	return render.RenderPrime(st.Brief(), o, 0).Tokens
}
