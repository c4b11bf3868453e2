// Package client is the Go client of Smriti's HTTP API, the one the CLI and
// `smriti mcp` use: it sends wire types and maps error statuses back to the
// domain's codes, so a caller sees the error the server meant. It imports
// the domain and wire only.
package client
