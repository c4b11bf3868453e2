package app

import (
	"context"
	"fmt"
	"io"

	"smriti"
	"smriti/internal/pages"
	"smriti/lineage"
	"smriti/portability"
)

// CreateSpace makes a space.
func (a *App) CreateSpace(ctx context.Context, in smriti.SpaceCreate) (*smriti.Space, error) {
	return a.store.CreateSpace(ctx, in)
}

// Space opens a space (ENOTFOUND when missing or not the caller's to see).
func (a *App) Space(ctx context.Context, id smriti.ID) (*smriti.Space, error) {
	return a.store.Space(ctx, id)
}

// Spaces lists one page of the spaces the caller can see and the cursor of
// the next ("" after the last).
func (a *App) Spaces(ctx context.Context, page smriti.Page) ([]*smriti.Space, string, error) {
	return a.store.Spaces(ctx, page)
}

// AllSpaces lists every space the caller can see.
func (a *App) AllSpaces(ctx context.Context) ([]*smriti.Space, error) {
	return pages.All(func(after string) ([]*smriti.Space, string, error) {
		return a.store.Spaces(ctx, smriti.Page{After: after})
	})
}

// SetProjectRoot records the directory a space's work lives in.
func (a *App) SetProjectRoot(ctx context.Context, id smriti.ID, root string) (*smriti.Space, error) {
	return a.store.SetProjectRoot(ctx, id, root)
}

// DeleteSpace deletes a space and everything in it.
func (a *App) DeleteSpace(ctx context.Context, id smriti.ID) error {
	return a.store.DeleteSpace(ctx, id)
}

// SpaceTree is a space's checkpoint graph.
func (a *App) SpaceTree(ctx context.Context, id smriti.ID) (*lineage.Tree, error) {
	return a.store.SpaceTree(ctx, id)
}

// ExportSpace writes a space's bundle to w (an export, or the source of a
// clone). The space is read once, from one snapshot: its records pass the
// exit guard (see exitGuard) on their way into a spool file, and the
// bundle is copied to w only when all of them have, so a refusal comes
// before w's first byte.
func (a *App) ExportSpace(ctx context.Context, id smriti.ID, w io.Writer) error {
	return spooled(w, "export", func(spool io.Writer) error {
		bw, err := portability.NewBundleWriter(spool)
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		if err := a.store.ExportSpace(ctx, id, a.exitGuard(ctx, id, "export", bw)); err != nil {
			return err
		}
		if err := bw.Close(); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		return nil
	})
}

// ImportSpace reads a bundle into a space (a new one when asNew) and
// returns what the bundle held. Each record is decoded once, checked as it
// is written; the import is one transaction, so a record that fails
// leaves nothing behind.
func (a *App) ImportSpace(ctx context.Context, r io.ReadSeeker, asNew bool) (*smriti.Space, *portability.BundleCounts, error) {
	return portability.ImportScanned(ctx, a.store, r, portability.ScanBundle(r), asNew)
}
