package client

import (
	"context"
	"strconv"

	"smriti"
	"smriti/wire"
)

// RecordReceipt reports what a hook re-injected after a compaction; the
// server checks it against the live items and answers the receipt.
func (c *Client) RecordReceipt(ctx context.Context, space smriti.ID, req wire.ReceiptRequest) (*wire.ReceiptOut, error) {
	var out wire.ReceiptOut
	return &out, c.post(ctx, "/api/v5/spaces/"+space.String()+"/receipts", req, &out)
}

// Receipts lists a space's compaction receipts, newest first (every one
// when limit <= 0).
func (c *Client) Receipts(ctx context.Context, space smriti.ID, limit int) ([]wire.ReceiptOut, error) {
	path := "/api/v5/spaces/" + space.String() + "/receipts"
	if limit > 0 {
		path += "?limit=" + strconv.Itoa(limit)
	}
	var out []wire.ReceiptOut
	return out, c.get(ctx, path, &out)
}
