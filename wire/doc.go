// Package wire holds the HTTP API's request and response types and the
// mappers between them and the domain, shared by the server (httpapi) and
// the Go client (client). The JSON names keep the first implementation's
// wire format (spaces are "repos", checkpoints "commits"); every field
// carries a doc tag that the OpenAPI document is built from.
package wire
