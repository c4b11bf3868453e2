//go:build webui

package web

import (
	"embed"
	"io/fs"
)

//go:embed all:dist
var built embed.FS

var dist = func() fs.FS {
	sub, err := fs.Sub(built, "dist")
	if err != nil {
		panic(err)
	}
	return sub
}()
