//go:build !webui

package web

import "io/fs"

// dist is nil: this binary was built without the web workspace.
var dist fs.FS
