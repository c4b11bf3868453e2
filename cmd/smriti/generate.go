package main

// The README's MCP tool list is generated from the registered tools.
//go:generate go test -run TestREADMEToolList -update-readme .
