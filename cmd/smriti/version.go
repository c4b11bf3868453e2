package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Set at build time with -ldflags "-X main.version=… -X main.commit=… -X main.date=…".
// The release build takes the date from the commit, not the clock, so the
// same commit links to the same bytes.
var (
	version = "dev"
	commit  = "unknown"
	date    = "unknown"
)

// buildInfo is what `smriti version --json` prints.
type buildInfo struct {
	Version   string       `json:"version"`
	Commit    string       `json:"commit"`
	Date      string       `json:"date"`
	GoVersion string       `json:"go_version"`
	Platform  string       `json:"platform"`
	Module    string       `json:"module"`
	Modules   []moduleInfo `json:"modules"`
}

type moduleInfo struct {
	Path    string `json:"path"`
	Version string `json:"version"`
	Sum     string `json:"sum"`
	// Replaced is the module path and version that replaced this one, if any.
	Replaced string `json:"replaced,omitempty"`
}

// readBuildInfo combines the link-time variables with what the Go
// toolchain recorded in the binary. A plain `go build` (no ldflags) still
// names its commit and date through the toolchain's VCS stamp.
func readBuildInfo() buildInfo {
	b := buildInfo{Version: version, Commit: commit, Date: date, GoVersion: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH, Modules: []moduleInfo{}}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	b.GoVersion = bi.GoVersion
	b.Module = bi.Main.Path
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision" && b.Commit == "unknown":
			b.Commit = s.Value
		case s.Key == "vcs.time" && b.Date == "unknown":
			b.Date = s.Value
		}
	}
	for _, d := range bi.Deps {
		m := moduleInfo{Path: d.Path, Version: d.Version, Sum: d.Sum}
		if d.Replace != nil {
			m.Replaced = d.Replace.Path + "@" + d.Replace.Version
			m.Sum = d.Replace.Sum
		}
		b.Modules = append(b.Modules, m)
	}
	return b
}

func newVersionCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and build date (--json: also the Go version and every module)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			b := readBuildInfo()
			if asJSON {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(b)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "smriti %s (commit %s, built %s, %s, %s)\n", b.Version, b.Commit, b.Date, b.GoVersion, b.Platform)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print as JSON, with the Go version and the version of every module linked in")
	return cmd
}
