package mockderive

import (
	"smriti"
	"smriti/intelligence"
)

// req is a structured-output request whose data block is data.
func req(schema, data string) intelligence.CompletionRequest {
	return intelligence.CompletionRequest{
		Schema:   &intelligence.JSONSchema{Name: schema},
		Messages: []intelligence.Message{{Role: smriti.RoleSystem, Content: "rules"}, {Role: smriti.RoleUser, Content: "Draft.\n\n" + intelligence.DataBegin + "\n" + data + "\n<<<END DATA>>>"}},
	}
}
