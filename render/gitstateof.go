package render

import "smriti"

// GitStateOf reads metadata.git back (nil when absent or malformed).
func GitStateOf(meta map[string]any) *smriti.GitState {
	m, ok := meta["git"].(map[string]any)
	if !ok {
		return nil
	}
	g := &smriti.GitState{}
	g.Commit, _ = m["commit"].(string)
	g.Branch, _ = m["branch"].(string)
	g.Dirty, _ = m["dirty"].(bool)
	g.DiffSHA256, _ = m["diff_sha256"].(string)
	if g.Commit == "" {
		return nil
	}
	return g
}
