package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"smriti/account"
	"smriti/app"
	"smriti/httpapi"
	"smriti/store"
)

// authOptions are serve's account and rate-limit flags.
type authOptions struct {
	enabled      bool
	sessionTTL   time.Duration
	secureCookie bool
	// llmRate is LLM-backed calls per minute per principal; negative takes
	// the mode's default (defaultAuthLLMRate with --auth, unlimited without).
	llmRate  float64
	llmBurst int
}

// Rate limit on the LLM-backed endpoints in auth mode unless set.
const (
	defaultAuthLLMRate  = 30
	defaultAuthLLMBurst = 10
)

func addAuthFlags(cmd *cobra.Command, o *authOptions) {
	f := cmd.Flags()
	on := strings.EqualFold(os.Getenv("SMRITI_AUTH"), "on") || os.Getenv("SMRITI_AUTH") == "1" || strings.EqualFold(os.Getenv("SMRITI_AUTH"), "true")
	f.BoolVar(&o.enabled, "auth", on,
		"auth mode: every API request needs an API token (Authorization: Bearer) or a browser login; required to serve beyond loopback (env SMRITI_AUTH=on)")
	f.DurationVar(&o.sessionTTL, "session-ttl", httpapi.DefaultSessionTTL, "how long a browser login lasts")
	f.BoolVar(&o.secureCookie, "secure-cookie", false, "mark the session cookie Secure even over plain HTTP (when a TLS proxy fronts the server)")
	rate, err := strconv.ParseFloat(envOr("SMRITI_LLM_RATE", "-1"), 64)
	if err != nil {
		rate = -1
	}
	f.Float64Var(&o.llmRate, "llm-rate", rate,
		"LLM-backed calls (send, draft, extract, review, title) per minute per token or user; 0 = unlimited; default 30 with --auth, unlimited without (env SMRITI_LLM_RATE)")
	f.IntVar(&o.llmBurst, "llm-burst", defaultAuthLLMBurst, "how many LLM-backed calls may come at once before --llm-rate applies")
}

// config is auth mode for the HTTP server and the LLM gate's allowance and
// role check for the app.
func (o authOptions) config(accounts account.Service) (httpapi.AuthConfig, app.GateConfig) {
	rate := o.llmRate
	if rate < 0 {
		rate = 0
		if o.enabled {
			rate = defaultAuthLLMRate
		}
	}
	gate := app.GateConfig{RatePerMinute: rate, Burst: o.llmBurst}
	if o.enabled {
		gate.Roles = accounts.SpaceRole
	}
	return httpapi.AuthConfig{Enabled: o.enabled, Accounts: accounts, SessionTTL: o.sessionTTL, SecureCookie: o.secureCookie}, gate
}

// openAccounts opens the store as the account commands' account.Service.
func openAccounts(ctx context.Context, dsn string) (account.Service, io.Closer, error) {
	db, err := store.Open(ctx, dsn, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("open database %s: %w", redactDSN(dsn), err)
	}
	return db, db, nil
}
